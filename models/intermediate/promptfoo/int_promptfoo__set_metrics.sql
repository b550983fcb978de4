{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per (promptfoo
-- set, metric): the pass rate and each scorer's mean (promptfoo_set_scores)
-- and the tokens per result and the cost (promptfoo_runs) as the marts hold
-- them (one source of truth), beside the stats model's estimate, n and
-- standard error.
with

stats as (

    select * from {{ ref('int_promptfoo__set_stats') }}

),

set_scores as (

    select * from {{ ref('promptfoo_set_scores') }}

),

runs as (

    select * from {{ ref('promptfoo_runs') }}

),

mart_values as (

    select
        set_id,
        case when metric = 'pass_rate' then 'pass_rate' else scorer end
            as metric,
        value as metric_value,
        scale_min,
        scale_max,
        is_proportion
    from set_scores

    union all

    select
        set_id,
        'tokens_per_sample' as metric,
        tokens_per_sample as metric_value,
        cast(null as double) as scale_min,
        cast(null as double) as scale_max,
        cast(null as boolean) as is_proportion
    from runs
    where tokens_per_sample is not null

    union all

    select
        set_id,
        'total_cost' as metric,
        total_cost as metric_value,
        cast(null as double) as scale_min,
        cast(null as double) as scale_max,
        cast(null as boolean) as is_proportion
    from runs
    where total_cost is not null

),

final as (

    {{ interface_set_metrics('stats', 'mart_values', scaled=true) }}

)

select * from final
