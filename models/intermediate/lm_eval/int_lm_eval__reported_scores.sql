{{ config(materialized='ephemeral') }}
-- One row per (lm-eval set, scorer, metric) lm-eval reported in the
-- results file (results[task]["<metric>,<filter>"] and
-- ["<metric>_stderr,<filter>"]): for a metric lm-eval aggregates by mean,
-- `mean` (its figure) and `stderr` (its mean_stderr); for any other, the
-- aggregation's name (bleu, perplexity, ...) and `stderr` (a bootstrap,
-- or none). "N/A" (a stderr lm-eval did not compute) is null.
with

sets as (

    select * from {{ ref('int_lm_eval__task_sets') }}

),

default_aggregations as (

    select * from {{ ref('lm_eval_metric_aggregations') }}

),

entries as (

    select
        set_id,
        cast(aggregations_json as json) as aggregations,
        unnest(json_transform(scorers_json, '["JSON"]')) as entry
    from sets

),

scorers as (

    select
        entries.set_id,
        entries.entry ->> '$.scorer' as scorer,
        coalesce(
            entries.aggregations
            ->> ('$."' || (entries.entry ->> '$.metric') || '"'),
            default_aggregations.aggregation,
            'mean'
        ) as aggregation,
        {{ json_finite_number("entries.entry -> '$.value'") }}
            as reported_value,
        {{ json_finite_number("entries.entry -> '$.stderr'") }}
            as reported_stderr
    from entries
    left join default_aggregations
        on (entries.entry ->> '$.metric') = default_aggregations.metric

),

final as (

    select
        set_id,
        scorer,
        aggregation,
        case when aggregation = 'mean' then 'mean' else aggregation end
            as metric,
        reported_value as tool_reported_value
    from scorers

    union all

    select
        set_id,
        scorer,
        aggregation,
        'stderr' as metric,
        reported_stderr as tool_reported_value
    from scorers

)

select * from final
