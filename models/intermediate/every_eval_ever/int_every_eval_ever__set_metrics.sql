{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per (Every Eval
-- Ever aggregate, metric): each evaluation result under its history
-- metric name, valued as every_eval_ever_set_scores holds it (the mean of
-- its instance lines, else the figure the file reports), and the tokens
-- per sample (every_eval_ever_runs): one source of truth, beside the stats
-- model's estimate, n and standard error.
with

stats as (

    select * from {{ ref('int_every_eval_ever__set_stats') }}

),

set_scores as (

    select * from {{ ref('every_eval_ever_set_scores') }}

),

runs as (

    select * from {{ ref('every_eval_ever_runs') }}

),

mart_values as (

    select
        set_id,
        history_metric as metric,
        coalesce(value, tool_reported_value) as metric_value,
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

),

final as (

    {{ interface_set_metrics('stats', 'mart_values', scaled=true) }}

)

select * from final
