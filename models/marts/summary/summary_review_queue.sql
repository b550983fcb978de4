-- One row per (case, metric) that is a boundary case of source 10.2: the
-- cases `agent-eval judge` sends to an LLM, with what it needs to ask and
-- what came back.
with

case_metrics as (

    select * from {{ ref('int_summary__case_metrics') }}

),

rule_scores as (

    select * from {{ ref('int_summary__case_rule_scores') }}

),

final as (

    select
        case_metrics.set_id,
        case_metrics.file_sha256,
        case_metrics.case_id,
        case_metrics.metric,
        case_metrics.review_reason,
        case_metrics.rule_score,
        case_metrics.llm_score,
        case_metrics.final_score,
        case
            when case_metrics.is_judged then 'judged'
            when case_metrics.n_judge_attempts > 0 then 'failed'
            else 'pending'
        end as judge_status,
        case_metrics.judge_model,
        case_metrics.judge_prompt_version,
        case_metrics.judged_at,
        cast(case_metrics.n_judge_attempts as bigint) as n_judge_attempts,
        cast(case_metrics.n_judge_failures as bigint) as n_judge_failures,
        case_metrics.last_judge_error,
        rule_scores.question,
        rule_scores.answer,
        cast(to_json(rule_scores.contexts) as varchar) as contexts_json,
        array_to_string(rule_scores.summary_tags, ', ') as summary_tags,
        rule_scores.rule_snapshot
    from case_metrics
    inner join rule_scores
        on
            case_metrics.set_id = rule_scores.set_id
            and case_metrics.file_sha256 = rule_scores.file_sha256
            and case_metrics.case_id = rule_scores.case_id
    where case_metrics.is_review_case

)

select * from final
