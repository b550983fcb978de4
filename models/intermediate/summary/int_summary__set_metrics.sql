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

mart_values as (

    select
        set_id,
        metric,
        mean_score as metric_value
    from set_metrics

),

final as (

    {{ interface_set_metrics('stats', 'mart_values') }}

)

select * from final
