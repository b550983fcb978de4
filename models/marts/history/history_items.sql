{{ config(
    materialized='set_incremental',
    sets_model='int_history__sets',
    version_column='set_version',
    built_version_column='file_sha256',
) }}
-- One row per item key of every set of an agent with items: the agent's
-- item key (query and round; an imported log's sample id and epoch), the
-- first row of a duplicated key, with its pass flag (the agent's rule),
-- its item scores and its answer. What the compare pairs any two sets on
-- (macros/compare.sql; docs/compare.md).
with

items as (

    select * from {{ unbuilt_item_sets(ref('int_history__items')) }}
    where not is_duplicate

),

first_items as (

    select *
    from items
    qualify row_number() over (
        partition by set_id, query_id, round order by line_number
    ) = 1

),

final as (

    select
        agent,
        set_id,
        file_sha256,
        query_id,
        round,
        round_order,
        line_number,
        query_text,
        status,
        is_pass,
        accuracy_score,
        stability_score,
        latency_score,
        latency_sec,
        coalesce(error_message, assistant_message) as message,
        case when not is_pass then fail_detail end as fail_reason
    from first_items

)

select * from final
