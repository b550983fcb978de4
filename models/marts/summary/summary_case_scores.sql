-- One row per scored test case of the current version of each summary
-- dataset: the four final scores (SPEC 6) with pass flags, the rule and LLM
-- scores behind them, the evidence and the rule snapshot.
with

rule_scores as (

    select * from {{ ref('int_summary__case_rule_scores') }}

),

case_metrics as (

    select * from {{ ref('int_summary__case_metrics') }}

),

pivoted as (

    select
        set_id,
        file_sha256,
        case_id,
        {% for m in ['summary_accuracy', 'summary_risk_coverage',
                     'summary_non_definitive', 'summary_needs_followup'] %}
            max(final_score) filter (where metric = '{{ m }}') as {{ m }},
            max(llm_score) filter (where metric = '{{ m }}')
                as {{ m }}_llm_score,
            bool_or(is_pass) filter (where metric = '{{ m }}')
                as is_{{ m }}_pass,
        {% endfor %}
        count(*) filter (where is_review_case) as n_review_metrics,
        count(*) filter (where is_judged) as n_judged_metrics,
        count(*) filter (where not is_pass) as n_failed_metrics,
        {{ exact_avg('final_score') }} as mean_final_score
    from case_metrics
    group by set_id, file_sha256, case_id

),

final as (

    select
        ---------- ids
        rule_scores.set_id,
        rule_scores.file_sha256,
        cast(rule_scores.drop_date as date) as drop_date,
        rule_scores.line_number as case_index,
        rule_scores.case_id,
        ---------- final scores and pass flags
        pivoted.summary_accuracy,
        pivoted.summary_risk_coverage,
        pivoted.summary_non_definitive,
        pivoted.summary_needs_followup,
        pivoted.is_summary_accuracy_pass,
        pivoted.is_summary_risk_coverage_pass,
        pivoted.is_summary_non_definitive_pass,
        pivoted.is_summary_needs_followup_pass,
        pivoted.n_failed_metrics = 0 as is_all_pass,
        cast(pivoted.n_failed_metrics as bigint) as n_failed_metrics,
        pivoted.mean_final_score,
        ---------- rule and llm scores
        rule_scores.summary_accuracy_rule_score,
        rule_scores.summary_risk_coverage_rule_score,
        rule_scores.summary_non_definitive_rule_score,
        rule_scores.summary_needs_followup_rule_score,
        pivoted.summary_accuracy_llm_score,
        pivoted.summary_risk_coverage_llm_score,
        pivoted.summary_non_definitive_llm_score,
        pivoted.summary_needs_followup_llm_score,
        cast(pivoted.n_review_metrics as bigint) as n_review_metrics,
        cast(pivoted.n_judged_metrics as bigint) as n_judged_metrics,
        ---------- evidence
        cast(rule_scores.n_contexts as bigint) as n_contexts,
        rule_scores.n_summary_entities,
        rule_scores.n_context_entities,
        rule_scores.n_supported_entities,
        rule_scores.summary_entities,
        rule_scores.unsupported_entities,
        array_to_string(rule_scores.summary_tags, ', ') as summary_tags,
        rule_scores.n_expected_tags,
        rule_scores.n_covered_tags,
        rule_scores.covered_tags,
        rule_scores.missing_tags,
        rule_scores.unknown_tags,
        rule_scores.definitive_expressions,
        rule_scores.followup_expressions,
        rule_scores.has_followup_tag,
        rule_scores.has_followup_expression,
        ---------- text
        rule_scores.summary_intent,
        rule_scores.question,
        rule_scores.answer,
        rule_scores.ground_truth,
        cast(to_json(rule_scores.contexts) as varchar) as contexts_json,
        rule_scores.rule_snapshot,
        rule_scores.scoring_version
    from rule_scores
    inner join pivoted
        on
            rule_scores.set_id = pivoted.set_id
            and rule_scores.file_sha256 = pivoted.file_sha256
            and rule_scores.case_id = pivoted.case_id

)

select * from final
