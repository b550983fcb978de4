{{ config(materialized='table') }}
-- One row per (summary dataset, metric): the mean final score over cases
-- (as summary_set_metrics), its n and its standard error, each case its own
-- cluster. A table, not incremental: summary sets are re-scored when a rule
-- seed changes and final scores move when judgments arrive; these follow.
-- The scoring version is the one stored with the case scores.
with

cases as (

    select * from {{ ref('summary_case_scores') }}

),

observations as (

    select
        cases.set_id,
        cases.file_sha256,
        metrics.metric,
        'all' as group_key,
        cases.case_id as cluster_id,
        metrics.metric_value
    from cases
    cross join lateral (
        values
        ('summary_accuracy', cases.summary_accuracy),
        ('summary_risk_coverage', cases.summary_risk_coverage),
        ('summary_non_definitive', cases.summary_non_definitive),
        ('summary_needs_followup', cases.summary_needs_followup)
    ) as metrics (metric, metric_value)

),

{{ cluster_mean_stats('observations') }},

set_scoring_versions as (

    select
        set_id,
        min(scoring_version) as scoring_version
    from cases
    group by set_id

),

final as (

    select
        metric_stats.set_id,
        metric_stats.file_sha256,
        'summary' as agent,
        metric_stats.metric,
        metric_stats.metric_value,
        metric_stats.n_obs,
        metric_stats.n_clusters,
        metric_stats.std_error,
        set_scoring_versions.scoring_version
    from metric_stats
    inner join set_scoring_versions
        on metric_stats.set_id = set_scoring_versions.set_id

)

select * from final
