{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets() }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
-- One row per (set, query) of the resume and recruit agents: the query's
-- runs in the set (rounds; a duplicated resume row is not a run) reduced
-- every way: pass count and rate, the modal status (ties go to the worse
-- status: error, empty, partial, ok) and a flakiness class.
with

items as (

    select * from {{ ref('int_history__items') }}
    where
        not is_duplicate
        and (
            {{ is_unbuilt_set(kind='resume_agent') }}
            or {{ is_unbuilt_set(kind='recruit_agent') }}
        )

),

status_counts as (

    select
        set_id,
        query_id,
        status,
        count(*) as n_status,
        row_number() over (
            partition by set_id, query_id
            order by
                count(*) desc,
                case status
                    when 'error' then 1
                    when 'empty' then 2
                    when 'partial' then 3
                    when 'ok' then 4
                    else 5
                end,
                status
        ) as status_rank
    from items
    group by set_id, query_id, status

),

runs as (

    select
        agent,
        set_id,
        file_sha256,
        query_id,
        min(query_text) as query_text,
        count(*) as n_runs,
        count(*) filter (where is_pass) as n_pass
    from items
    group by agent, set_id, file_sha256, query_id

),

final as (

    select
        runs.agent,
        runs.set_id,
        runs.file_sha256,
        runs.query_id,
        runs.query_text,
        cast(runs.n_runs as bigint) as n_runs,
        cast(runs.n_pass as bigint) as n_pass,
        runs.n_pass / runs.n_runs as pass_rate,
        status_counts.status as modal_status,
        cast(status_counts.n_status as bigint) as n_modal_status,
        case
            when runs.n_pass = runs.n_runs then 'always_pass'
            when runs.n_pass = 0 then 'always_fail'
            else 'flaky'
        end as flakiness_class
    from runs
    inner join status_counts
        on
            runs.set_id = status_counts.set_id
            and runs.query_id = status_counts.query_id
            and status_counts.status_rank = 1

)

select * from final
