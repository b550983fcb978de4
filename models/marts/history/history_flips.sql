-- One row per item matched between the latest set of each series of an
-- agent with items and its baseline set: same query and same round (the
-- first row of a duplicated (query, round)). Both statuses, both pass
-- flags (each agent's own rule) and both messages; transition says which
-- way it went.
with

items as (

    select * from {{ ref('int_history__items') }}
    where not is_duplicate

),

sets as (

    select * from {{ ref('int_history__sets') }}
    where
        is_latest
        and baseline_set_id is not null

),

first_items as (

    select *
    from items
    where
        set_id in (
            select sets.set_id from sets
            union all
            select sets.baseline_set_id from sets
        )
    qualify row_number() over (
        partition by set_id, query_id, round order by line_number
    ) = 1

),

final as (

    select
        sets.agent,
        sets.series_id,
        sets.set_id,
        sets.baseline_set_id,
        cur.query_id,
        cur.round,
        cur.query_text,
        base.status as baseline_status,
        cur.status,
        base.is_pass as baseline_is_pass,
        cur.is_pass,
        case
            when base.is_pass and not cur.is_pass then 'pass_to_fail'
            when not base.is_pass and cur.is_pass then 'fail_to_pass'
            when cur.is_pass then 'still_pass'
            else 'still_fail'
        end as transition,
        base.line_number as baseline_line_number,
        cur.line_number,
        coalesce(base.error_message, base.assistant_message)
            as baseline_message,
        coalesce(cur.error_message, cur.assistant_message) as message,
        case when not base.is_pass then base.fail_detail end
            as baseline_fail_reason,
        case when not cur.is_pass then cur.fail_detail end as fail_reason
    from sets
    inner join first_items as cur
        on sets.set_id = cur.set_id
    inner join first_items as base
        on
            sets.baseline_set_id = base.set_id
            and cur.query_id = base.query_id
            and cur.round = base.round

)

select * from final
