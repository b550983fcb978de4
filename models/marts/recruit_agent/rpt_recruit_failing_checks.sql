{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per (set, check, reason) that failed: how many items it failed
-- and an example of the value found, ranked by the number of items: the
-- report's failing-checks table (its first ten).
with

checks as (

    select * from {{ unbuilt(ref('recruit_check_results')) }}

),

failed as (

    select
        set_id,
        file_sha256,
        coalesce('accuracyChecks: ' || check_name, check_text, '')
            as check_label,
        reason,
        count(*) as n_failed,
        min(actual_value) as actual_value
    from checks
    where not is_passed
    group by
        set_id,
        file_sha256,
        coalesce('accuracyChecks: ' || check_name, check_text, ''),
        reason

),

final as (

    select
        set_id,
        file_sha256,
        check_label,
        reason,
        n_failed,
        actual_value,
        row_number() over (
            partition by set_id
            order by n_failed desc, check_label asc, reason asc
        ) as check_rank
    from failed

)

select * from final
