{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per (resume set,
-- set-level metric): the value as the set mart holds it (one source of
-- truth) beside the estimate, n and standard error of the stats model.
with

stats as (

    select * from {{ ref('int_resume_agent__set_stats') }}

),

set_scores as (

    select * from {{ ref('resume_set_scores') }}

),

mart_values as (

    select
        set_scores.set_id,
        metrics.metric,
        metrics.metric_value
    from set_scores
    cross join
        lateral (
            values
            ('intent_score', set_scores.intent_score),
            ('accuracy_score', set_scores.accuracy_score),
            ('stability_score', set_scores.stability_score),
            ('consistency_score', set_scores.consistency_score),
            ('latency_score', set_scores.latency_score),
            ('latency_sec', set_scores.latency_sec)
        ) as metrics (metric, metric_value)

),

final as (

    {{ interface_set_metrics('stats', 'mart_values') }}

)

select * from final
