-- One row per (dataset, metric, bin) with cases: the histogram of the
-- cases' final scores of each metric (0 to 1 in score_histogram_bins equal
-- bins), as the report's chart draws it. A table, like the case scores it
-- counts (which follow judgments and rule edits).
with

cases as (

    select * from {{ ref('summary_case_scores') }}

),

observations as (

    select
        cases.set_id,
        cases.file_sha256,
        scores.series,
        scores.score
    from cases
    cross join
        lateral (
            values
            ('summary_accuracy', cases.summary_accuracy),
            ('summary_risk_coverage', cases.summary_risk_coverage),
            ('summary_non_definitive', cases.summary_non_definitive),
            ('summary_needs_followup', cases.summary_needs_followup)
        ) as scores (series, score)

),

final as (

    {{ score_histogram('observations', 'unit') }}

)

select * from final
