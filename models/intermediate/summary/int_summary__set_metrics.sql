{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per (summary
-- dataset, metric): the mean final score as summary_set_metrics holds it
-- (one source of truth) beside the estimate, n and standard error of the
-- stats model.
with

stats as (

    select * from {{ ref('int_summary__set_stats') }}

),

set_metrics as (

    select * from {{ ref('summary_set_metrics') }}

),

final as (

    select
        stats.set_id,
        stats.agent,
        stats.metric,
        set_metrics.mean_score as metric_value,
        stats.metric_value as estimate,
        stats.n_obs,
        stats.n_clusters,
        stats.std_error,
        stats.scoring_version
    from stats
    inner join set_metrics
        on
            stats.set_id = set_metrics.set_id
            and stats.metric = set_metrics.metric

)

select * from final
