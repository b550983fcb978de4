{{ config(
    materialized='set_incremental',
    sets_model='int_history__sets',
    version_column='set_version',
    built_version_column='file_sha256',
) }}
-- One row per (set, query) of the resume and recruit agents: the query's
-- runs in the set (rounds; a duplicated resume row is not a run) reduced
-- every way: pass count and rate, the modal status (ties go to the worse
-- status: error, empty, partial, ok) and a flakiness class.
with

items as (

    select * from {{ unbuilt_item_sets(ref('int_history__items')) }}
    where not is_duplicate

),

runs as (

    -- one aggregate: the status counts ride along with the run counts (the
    -- item marts hold only the four statuses, not null, by contract), so
    -- the modal status needs no second grouping, window or join (at 3M rows
    -- those spilled out of the 1 GB budget;
    -- docs/decisions/0024-duckdb-memory-budget.md)
    select
        agent,
        set_id,
        file_sha256,
        query_id,
        min(query_text) as query_text,
        count(*) as n_runs,
        count(*) filter (where is_pass) as n_pass,
        count(*) filter (where status = 'error') as n_error,
        count(*) filter (where status = 'empty') as n_empty,
        count(*) filter (where status = 'partial') as n_partial,
        count(*) filter (where status = 'ok') as n_ok
    from items
    group by agent, set_id, file_sha256, query_id

),

modal as (

    select
        *,
        greatest(n_error, n_empty, n_partial, n_ok) as n_modal_status
    from runs

),

final as (

    select
        agent,
        set_id,
        file_sha256,
        query_id,
        query_text,
        cast(n_runs as bigint) as n_runs,
        cast(n_pass as bigint) as n_pass,
        n_pass / n_runs as pass_rate,
        -- ties go to the worse status: error, empty, partial, ok
        case n_modal_status
            when n_error then 'error'
            when n_empty then 'empty'
            when n_partial then 'partial'
            else 'ok'
        end as modal_status,
        cast(n_modal_status as bigint) as n_modal_status,
        case
            when n_pass = n_runs then 'always_pass'
            when n_pass = 0 then 'always_fail'
            else 'flaky'
        end as flakiness_class
    from modal

)

select * from final
