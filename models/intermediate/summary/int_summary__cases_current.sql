-- One row per scorable test case of the current version of each summary
-- dataset. Rejected cases are not here (see ops.rejected_rows).
with

cases as (

    select * from {{ ref('stg_summary__cases') }}

),

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

final as (

    select
        current_sets.set_id,
        cases.file_sha256,
        cases.drop_date,
        cases.line_number,
        cases.case_id,
        cases.question,
        cases.answer,
        cases.ground_truth,
        cases.contexts,
        cases.n_contexts,
        cases.summary_intent,
        cases.summary_tags
    from cases
    inner join current_sets
        on
            cases.source_file = current_sets.set_id
            and cases.file_sha256 = current_sets.file_sha256
    where cases.reject_reason is null

)

select * from final
