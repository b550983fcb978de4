{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per (engagement
-- run, metric). A run's similarity is one ratio, which the stats model
-- copies from the run marts: the value and the estimate are the same.
with

stats as (

    select * from {{ ref('int_engagement__set_stats') }}

),

final as (

    select
        set_id,
        agent,
        metric,
        metric_value,
        metric_value as estimate,
        n_obs,
        n_clusters,
        std_error,
        scoring_version,
        -- the scale: seed history_metrics declares it
        cast(null as double) as scale_min,
        cast(null as double) as scale_max,
        cast(null as boolean) as is_proportion
    from stats

)

select * from final
