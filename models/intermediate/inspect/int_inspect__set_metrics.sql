{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per (Inspect AI
-- log, metric): each scorer's mean (inspect_set_scores, its accuracy or mean
-- row), the tokens per sample, the cost and run_complete (inspect_runs) as
-- the marts hold
-- them (one source of truth), beside the stats model's estimate, n and
-- standard error.
with

stats as (

    select * from {{ ref('int_inspect__set_stats') }}

),

set_scores as (

    select * from {{ ref('inspect_set_scores') }}

),

runs as (

    select * from {{ ref('inspect_runs') }}

),

mart_values as (

    select
        set_id,
        scorer as metric,
        min(value) as metric_value,
        min(scale_min) as scale_min,
        max(scale_max) as scale_max,
        bool_and(is_proportion) as is_proportion
    from set_scores
    where metric in ('accuracy', 'mean')
    group by set_id, scorer

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

    union all

    select
        set_id,
        'run_complete' as metric,
        case when is_complete then 1.0 else 0.0 end as metric_value,
        cast(null as double) as scale_min,
        cast(null as double) as scale_max,
        cast(null as boolean) as is_proportion
    from runs

),

final as (

    {{ interface_set_metrics('stats', 'mart_values', scaled=true) }}

)

select * from final
