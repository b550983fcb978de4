-- One row per (scored case, metric) of the current version of each summary
-- dataset: the long form of summary_case_scores, so "cases below their
-- threshold" is one filter (is_pass = false): the final score, the rule
-- and LLM scores behind it, the threshold in force and where it came from.
with

case_metrics as (

    select * from {{ ref('int_summary__case_metrics') }}

),

case_scores as (

    select * from {{ ref('summary_case_scores') }}

),

final as (

    select
        case_metrics.set_id,
        case_metrics.file_sha256,
        case_scores.drop_date,
        case_scores.case_index,
        case_metrics.case_id,
        case_metrics.metric,
        cast(case_metrics.metric_order as integer) as metric_order,
        case_metrics.final_score as score,
        case_metrics.rule_score,
        case_metrics.llm_score,
        case_metrics.is_judged,
        case_metrics.threshold,
        case_metrics.threshold_source,
        case_metrics.is_pass,
        case_scores.scoring_version
    from case_metrics
    inner join case_scores
        on
            case_metrics.set_id = case_scores.set_id
            and case_metrics.file_sha256 = case_scores.file_sha256
            and case_metrics.case_id = case_scores.case_id

)

select * from final
