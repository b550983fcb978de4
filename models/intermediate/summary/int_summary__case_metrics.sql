-- One row per (scored case, metric): the rule score, whether the case is a
-- boundary case for the LLM review queue (source 10.2), the latest
-- successful LLM judgment, the final score (source 10.1: rule_weight x rule
-- + llm_weight x llm where judged, else rule), threshold and pass flag.
with

rule_scores as (

    select * from {{ ref('int_summary__case_rule_scores') }}

),

thresholds as (

    select * from {{ ref('int_summary__set_thresholds') }}

),

judgments as (

    select * from {{ ref('stg_summary__judgments') }}

),

rule_params as (

    select * from {{ ref('summary_rule_params') }}

),

params as (

    select
        max(value) filter (
            where param = 'review_accuracy_min_score'
        ) as review_min_score,
        max(value) filter (
            where param = 'review_accuracy_max_score'
        ) as review_max_score,
        max(value) filter (
            where param = 'review_accuracy_max_entities'
        ) as review_max_entities,
        max(value) filter (where param = 'hybrid_rule_weight') as rule_weight,
        max(value) filter (where param = 'hybrid_llm_weight') as llm_weight
    from rule_params

),

long_scores as (

    select
        rule_scores.set_id,
        rule_scores.file_sha256,
        rule_scores.case_id,
        'summary_accuracy' as metric,
        rule_scores.summary_accuracy_rule_score as rule_score,
        case
            when
                rule_scores.summary_accuracy_rule_score
                between params.review_min_score and params.review_max_score
                then 'accuracy_score_in_boundary_band'
            when rule_scores.n_summary_entities <= params.review_max_entities
                then 'accuracy_few_entities'
        end as review_reason
    from rule_scores
    cross join params
    union all
    select
        set_id,
        file_sha256,
        case_id,
        'summary_risk_coverage' as metric,
        summary_risk_coverage_rule_score as rule_score,
        case
            when n_expected_tags = 0 then 'risk_coverage_no_tags'
        end as review_reason
    from rule_scores
    union all
    select
        set_id,
        file_sha256,
        case_id,
        'summary_non_definitive' as metric,
        summary_non_definitive_rule_score as rule_score,
        case
            when summary_non_definitive_rule_score = 0
                then 'non_definitive_rule_zero'
        end as review_reason
    from rule_scores
    union all
    select
        set_id,
        file_sha256,
        case_id,
        'summary_needs_followup' as metric,
        summary_needs_followup_rule_score as rule_score,
        case
            when has_followup_tag then 'needs_followup_tagged'
            when n_expected_tags = 0 then 'needs_followup_untagged'
        end as review_reason
    from rule_scores

),

latest_ok_judgments as (

    select
        set_id,
        file_sha256,
        case_id,
        metric,
        llm_score,
        model,
        prompt_version,
        judged_at
    from judgments
    where status = 'ok'
    qualify row_number() over (
        partition by set_id, file_sha256, case_id, metric
        order by judged_at desc, judgment_id desc
    ) = 1

),

judgment_attempts as (

    select
        set_id,
        file_sha256,
        case_id,
        metric,
        count(*) as n_attempts,
        count(*) filter (where status <> 'ok') as n_failed_attempts,
        arg_max(status, judged_at) as last_status,
        arg_max(error, judged_at) as last_error
    from judgments
    group by set_id, file_sha256, case_id, metric

),

combined as (

    select
        long_scores.*,
        long_scores.review_reason is not null as is_review_case,
        -- a judgment counts only for a case that is in the review queue now
        case
            when long_scores.review_reason is not null
                then latest_ok_judgments.llm_score
        end as llm_score,
        case
            when long_scores.review_reason is not null
                then latest_ok_judgments.model
        end as judge_model,
        case
            when long_scores.review_reason is not null
                then latest_ok_judgments.prompt_version
        end as judge_prompt_version,
        case
            when long_scores.review_reason is not null
                then latest_ok_judgments.judged_at
        end as judged_at,
        coalesce(judgment_attempts.n_attempts, 0) as n_judge_attempts,
        coalesce(judgment_attempts.n_failed_attempts, 0)
            as n_judge_failures,
        judgment_attempts.last_status as last_judge_status,
        judgment_attempts.last_error as last_judge_error
    from long_scores
    left join latest_ok_judgments
        on
            long_scores.set_id = latest_ok_judgments.set_id
            and long_scores.file_sha256 = latest_ok_judgments.file_sha256
            and long_scores.case_id = latest_ok_judgments.case_id
            and long_scores.metric = latest_ok_judgments.metric
    left join judgment_attempts
        on
            long_scores.set_id = judgment_attempts.set_id
            and long_scores.file_sha256 = judgment_attempts.file_sha256
            and long_scores.case_id = judgment_attempts.case_id
            and long_scores.metric = judgment_attempts.metric

),

final as (

    select
        combined.set_id,
        combined.file_sha256,
        combined.case_id,
        combined.metric,
        thresholds.metric_order,
        combined.rule_score,
        combined.is_review_case,
        combined.review_reason,
        combined.llm_score,
        combined.judge_model,
        combined.judge_prompt_version,
        combined.judged_at,
        combined.n_judge_attempts,
        combined.n_judge_failures,
        combined.last_judge_status,
        combined.last_judge_error,
        case
            when combined.llm_score is not null
                then
                    params.rule_weight * combined.rule_score
                    + params.llm_weight * combined.llm_score
            else combined.rule_score
        end as final_score,
        combined.llm_score is not null as is_judged,
        thresholds.threshold,
        thresholds.threshold_source
    from combined
    cross join params
    inner join thresholds
        on
            combined.set_id = thresholds.set_id
            and combined.file_sha256 = thresholds.file_sha256
            and combined.metric = thresholds.metric

),

with_pass as (

    select
        *,
        final_score >= threshold as is_pass
    from final

)

select * from with_pass
