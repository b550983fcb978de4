{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets('int_promptfoo__output_sets') }}",
) }}
-- depends_on: {{ ref('int_promptfoo__output_sets') }}
-- One row per (promptfoo set, metric): the pass rate (the share of results
-- that succeeded, as promptfoo counts tests: every repeat is one), each
-- scorer's mean value over the results that carry it (`overall`: the
-- result's score), and the tokens per result, with n and the standard
-- error clustered by sample (the repeats of one test are one cluster);
-- macros/history.sql. The cost of the set (when its results record one)
-- is one value, with no interval.
with

items as (

    select * from {{ ref('promptfoo_item_scores') }}
    where {{ is_unbuilt_set(sets_model='int_promptfoo__output_sets') }}

),

results as (

    select * from items
    where scorer = 'overall'

),

observations as (

    select
        set_id,
        file_sha256,
        'pass_rate' as metric,
        'all' as group_key,
        sample_id as cluster_id,
        case when is_pass then 1.0 else 0.0 end as metric_value
    from results

    union all

    select
        set_id,
        file_sha256,
        scorer as metric,
        'all' as group_key,
        sample_id as cluster_id,
        value as metric_value
    from items

    union all

    select
        set_id,
        file_sha256,
        'tokens_per_sample' as metric,
        'all' as group_key,
        sample_id as cluster_id,
        coalesce(input_tokens, 0) + coalesce(output_tokens, 0) as metric_value
    from results
    where input_tokens is not null or output_tokens is not null

    union all

    select
        set_id,
        file_sha256,
        'total_cost' as metric,
        'all' as group_key,
        'set' as cluster_id,
        sum(total_cost) as metric_value
    from results
    group by set_id, file_sha256
    having count(total_cost) > 0

),

{{ cluster_mean_stats('observations') }},

final as (

    select
        set_id,
        file_sha256,
        'promptfoo' as agent,
        metric,
        metric_value,
        n_obs,
        n_clusters,
        std_error,
        {{ scoring_version('promptfoo') }} as scoring_version
    from metric_stats

)

select * from final
