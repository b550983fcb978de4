{{ config(
    materialized='set_incremental',
    sets_model='int_engagement__runs_current',
    version_column='run_sha256',
) }}
-- One row per (engagement run, metric): the overall similarity and each
-- present metric's similarity. A run's similarity is one ratio, not a mean
-- over sampled units, so n is 1 and there is no standard error.
with

runs as (

    select * from {{ unbuilt(ref('engagement_run_scores')) }}

),

run_metrics as (

    select * from {{ unbuilt(ref('engagement_run_metrics')) }}

),

all_values as (

    select
        set_id,
        run_sha256,
        'overall_similarity' as metric,
        overall_similarity as metric_value
    from runs
    where overall_similarity is not null

    union all

    select
        set_id,
        run_sha256,
        lower(regexp_replace(metric, '([a-z])([A-Z])', '\1_\2', 'g'))
        || '_similarity' as metric,
        similarity as metric_value
    from run_metrics
    where similarity is not null

),

final as (

    select
        set_id,
        run_sha256,
        'engagement' as agent,
        metric,
        cast(metric_value as double) as metric_value,
        cast(1 as bigint) as n_obs,
        cast(1 as bigint) as n_clusters,
        cast(null as double) as std_error,
        {{ scoring_version('engagement') }} as scoring_version
    from all_values

)

select * from final
