{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per (EvalVault
-- export, metric): the run's pass rate and each metric's mean
-- (evalvault_set_scores) and the tokens per test case and the cost
-- (evalvault_runs) as the marts hold them (one source of truth), beside
-- the stats model's estimate, n and standard error.
with

stats as (

    select * from {{ ref('int_evalvault__set_stats') }}

),

set_scores as (

    select * from {{ ref('evalvault_set_scores') }}

),

runs as (

    select * from {{ ref('evalvault_runs') }}

),

mart_values as (

    select
        set_id,
        case when scorer = 'overall' then 'pass_rate' else scorer end
            as metric,
        value as metric_value,
        scale_min,
        scale_max,
        is_proportion
    from set_scores
    where
        (scorer = 'overall' and metric = 'pass_rate')
        or (scorer <> 'overall' and metric = 'mean')

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
