{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per scored recruit
-- item with the fields flips, repeats and latency percentiles need; the
-- segment is the latency class, the fail detail the first failing
-- accuracy check (why an item whose status is ok / partial still fails the
-- pass rule), else the accuracy or status reason.
with

items as (

    select * from {{ ref('recruit_item_scores') }}

),

checks as (

    select * from {{ ref('recruit_check_results') }}

),

first_failed_checks as (

    select
        set_id,
        file_sha256,
        line_number,
        arg_min(
            coalesce(check_name, check_path, 'check ' || check_seq)
            || ': ' || reason,
            check_seq
        ) as failed_check
    from checks
    where not is_passed
    group by set_id, file_sha256, line_number

),

final as (

    select
        'recruit_agent' as agent,
        items.set_id,
        items.file_sha256,
        items.line_number,
        items.query_id,
        items.round,
        items.round_order,
        items.latency_class as segment,
        items.status,
        false as is_duplicate,
        items.accuracy_score,
        items.stability_score,
        items.latency_sec,
        items.latency_score,
        items.query_text,
        items.assistant_message,
        items.error_message,
        coalesce(
            first_failed_checks.failed_check,
            items.accuracy_reason,
            items.status_reason
        ) as fail_detail,
        items.is_pass
    from items
    left join first_failed_checks
        on
            items.set_id = first_failed_checks.set_id
            and items.file_sha256 = first_failed_checks.file_sha256
            and items.line_number = first_failed_checks.line_number

)

select * from final
