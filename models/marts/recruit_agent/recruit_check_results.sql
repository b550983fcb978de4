{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per evaluated accuracy check of every scored recruit item.
with

checks as (

    select * from {{ unbuilt(ref('int_recruit_agent__checks_evaluated')) }}

),

items as (

    select * from {{ ref('int_recruit_agent__items_current') }}

),

final as (

    select
        checks.set_id,
        checks.file_sha256,
        checks.line_number,
        checks.check_seq,
        items.item_id,
        items.query_id,
        items.round,
        checks.check_source,
        checks.expected_line,
        checks.check_text,
        checks.check_name,
        checks.check_path,
        checks.check_op,
        checks.check_value,
        checks.is_passed,
        checks.reason,
        checks.reason_detail,
        checks.n_matches,
        checks.actual_value
    from checks
    inner join items
        on
            checks.set_id = items.set_id
            and checks.line_number = items.line_number

)

select * from final
