{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per (lm-eval set,
-- scorer aggregated by mean): its mean as lm_eval_set_scores holds it (one
-- source of truth), beside the stats model's estimate, n and standard
-- error. The history's metric is the scorer ("acc,none").
with

stats as (

    select * from {{ ref('int_lm_eval__set_stats') }}

),

set_scores as (

    select * from {{ ref('lm_eval_set_scores') }}

),

mart_values as (

    select
        set_id,
        scorer as metric,
        value as metric_value,
        scale_min,
        scale_max,
        is_proportion
    from set_scores
    where metric = 'mean'

),

final as (

    {{ interface_set_metrics('stats', 'mart_values', scaled=true) }}

)

select * from final
