-- One row per (summary dataset, metric): mean rule and final score, the
-- threshold in force and where it came from, pass rate and the
-- below-threshold warning (the report's metric cards).
with

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

thresholds as (

    select * from {{ ref('int_summary__set_thresholds') }}

),

case_metrics as (

    select * from {{ ref('int_summary__case_metrics') }}

),

metric_stats as (

    select
        set_id,
        file_sha256,
        metric,
        count(*) as n_cases,
        {{ exact_avg('rule_score') }} as mean_rule_score,
        {{ exact_avg('final_score') }} as mean_score,
        count(*) filter (where is_pass) as n_pass,
        count(*) filter (where is_review_case) as n_review_cases,
        count(*) filter (where is_judged) as n_judged_cases
    from case_metrics
    group by set_id, file_sha256, metric

),

final as (

    select
        thresholds.set_id,
        thresholds.file_sha256,
        cast(current_sets.drop_date as date) as drop_date,
        thresholds.metric,
        thresholds.metric_order,
        thresholds.label_ko as metric_label,
        cast(coalesce(metric_stats.n_cases, 0) as bigint) as n_cases,
        metric_stats.mean_rule_score,
        metric_stats.mean_score,
        thresholds.threshold,
        thresholds.threshold_source,
        cast(coalesce(metric_stats.n_pass, 0) as bigint) as n_pass,
        metric_stats.n_pass / metric_stats.n_cases as pass_rate,
        coalesce(metric_stats.mean_score < thresholds.threshold, false)
            as is_below_threshold,
        case
            when metric_stats.mean_score < thresholds.threshold
                then
                    thresholds.metric || ' mean '
                    || printf('%.3f', metric_stats.mean_score)
                    || ' < threshold ' || printf('%.2f', thresholds.threshold)
        end as warning,
        cast(coalesce(metric_stats.n_review_cases, 0) as bigint)
            as n_review_cases,
        cast(coalesce(metric_stats.n_judged_cases, 0) as bigint)
            as n_judged_cases
    from thresholds
    inner join current_sets
        on
            thresholds.set_id = current_sets.set_id
            and thresholds.file_sha256 = current_sets.file_sha256
    left join metric_stats
        on
            thresholds.set_id = metric_stats.set_id
            and thresholds.file_sha256 = metric_stats.file_sha256
            and thresholds.metric = metric_stats.metric

)

select * from final
