{{ config(
    materialized='set_incremental',
    sets_model='int_engagement__runs_current',
    version_column='run_sha256',
) }}
-- One row per expected metric of every evaluated engagement run: expected vs
-- actual, errors, similarity and the weight used (SPEC 5).
with

runs as (

    select * from {{ ref('int_engagement__runs_current') }}

),

metric_scores as (

    select * from {{ unbuilt(ref('int_engagement__metric_scores')) }}
    where scope = 'run'

),

final as (

    select
        metric_scores.set_id,
        metric_scores.run_sha256,
        cast(runs.drop_date as date) as drop_date,
        runs.run_id,
        metric_scores.metric,
        metric_scores.metric_kind,
        metric_scores.metric_order,
        metric_scores.expected_value,
        metric_scores.actual_value,
        metric_scores.abs_error,
        metric_scores.relative_error,
        metric_scores.similarity,
        metric_scores.default_weight,
        metric_scores.weight_override,
        metric_scores.weight
    from metric_scores
    inner join runs
        on metric_scores.set_id = runs.set_id

)

select * from final
