-- One row per current summary dataset: its header, the four mean final
-- scores, pass rates, thresholds in force and the below-threshold warnings.
with

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

datasets as (

    select * from {{ ref('stg_summary__datasets') }}

),

set_metrics as (

    select * from {{ ref('summary_set_metrics') }}

),

case_scores as (

    select * from {{ ref('summary_case_scores') }}

),

rule_snapshot as (

    select * from {{ ref('int_summary__rule_snapshot') }}

),

metrics_wide as (

    select
        set_id,
        file_sha256,
        {% for m in ['summary_accuracy', 'summary_risk_coverage',
                     'summary_non_definitive', 'summary_needs_followup'] %}
            max(mean_score) filter (where metric = '{{ m }}') as {{ m }},
            max(pass_rate) filter (where metric = '{{ m }}')
                as {{ m }}_pass_rate,
            max(threshold) filter (where metric = '{{ m }}')
                as {{ m }}_threshold,
        {% endfor %}
        count(*) filter (where is_below_threshold) as n_warnings,
        string_agg(warning, '; ' order by metric_order) as warnings,
        sum(n_review_cases) as n_review_items,
        sum(n_judged_cases) as n_judged_items
    from set_metrics
    group by set_id, file_sha256

),

case_stats as (

    select
        set_id,
        file_sha256,
        count(*) as n_cases,
        count(*) filter (where is_all_pass) as n_all_pass_cases,
        min(rule_snapshot) as rule_snapshot
    from case_scores
    group by set_id, file_sha256

),

final as (

    select
        current_sets.set_id,
        current_sets.file_sha256,
        cast(current_sets.drop_date as date) as drop_date,
        datasets.dataset_name,
        datasets.dataset_version,
        cast(current_sets.n_data_records as bigint) as n_test_cases,
        cast(coalesce(case_stats.n_cases, 0) as bigint) as n_scored_cases,
        cast(coalesce(case_stats.n_all_pass_cases, 0) as bigint)
            as n_all_pass_cases,
        metrics_wide.summary_accuracy,
        metrics_wide.summary_risk_coverage,
        metrics_wide.summary_non_definitive,
        metrics_wide.summary_needs_followup,
        metrics_wide.summary_accuracy_pass_rate,
        metrics_wide.summary_risk_coverage_pass_rate,
        metrics_wide.summary_non_definitive_pass_rate,
        metrics_wide.summary_needs_followup_pass_rate,
        metrics_wide.summary_accuracy_threshold,
        metrics_wide.summary_risk_coverage_threshold,
        metrics_wide.summary_non_definitive_threshold,
        metrics_wide.summary_needs_followup_threshold,
        cast(metrics_wide.n_warnings as bigint) as n_warnings,
        metrics_wide.warnings,
        cast(metrics_wide.n_review_items as bigint) as n_review_items,
        cast(metrics_wide.n_judged_items as bigint) as n_judged_items,
        coalesce(case_stats.rule_snapshot, rule_snapshot.rule_snapshot)
            as rule_snapshot,
        cast(datasets.thresholds_json as varchar) as thresholds_json,
        cast(datasets.metadata_json as varchar) as dataset_metadata_json
    from current_sets
    inner join metrics_wide
        on
            current_sets.set_id = metrics_wide.set_id
            and current_sets.file_sha256 = metrics_wide.file_sha256
    left join datasets
        on
            current_sets.set_id = datasets.source_file
            and current_sets.file_sha256 = datasets.file_sha256
    left join case_stats
        on
            current_sets.set_id = case_stats.set_id
            and current_sets.file_sha256 = case_stats.file_sha256
    cross join rule_snapshot

)

select * from final
