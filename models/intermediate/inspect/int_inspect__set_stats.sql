{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets() }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
-- One row per (Inspect AI log, metric): each scorer's mean over samples of
-- the epoch-reduced value (Inspect's accuracy / mean), and the tokens per
-- sample record, with n and the standard error clustered by sample (each
-- sample its own cluster: Inspect's stderr, std(ddof 1) / sqrt(n));
-- macros/history.sql. The log's cost (when it records one) and whether it
-- finished (run_complete: 1 for status success) are one value each, with
-- no interval.
with

logs as (

    select * from {{ ref('int_inspect__logs_current') }}
    where {{ is_unbuilt_set(kind='inspect_log') }}

),

sample_scores as (

    select * from {{ ref('int_inspect__sample_scores') }}
    where {{ is_unbuilt_set(kind='inspect_log') }}

),

items as (

    select * from {{ ref('inspect_item_scores') }}
    where {{ is_unbuilt_set(kind='inspect_log') }}

),

sample_records as (

    select distinct
        set_id,
        file_sha256,
        sample_id,
        epoch,
        input_tokens,
        output_tokens,
        total_cost
    from items

),

observations as (

    select
        set_id,
        file_sha256,
        scorer as metric,
        'all' as group_key,
        sample_id as cluster_id,
        reduced_value as metric_value
    from sample_scores

    union all

    select
        set_id,
        file_sha256,
        'tokens_per_sample' as metric,
        'all' as group_key,
        sample_id as cluster_id,
        coalesce(input_tokens, 0) + coalesce(output_tokens, 0) as metric_value
    from sample_records
    where input_tokens is not null or output_tokens is not null

    union all

    select
        set_id,
        file_sha256,
        'total_cost' as metric,
        'all' as group_key,
        'set' as cluster_id,
        sum(total_cost) as metric_value
    from sample_records
    group by set_id, file_sha256
    having count(total_cost) > 0

    union all

    -- 1 when the log finished (status success): a gate can require it
    select
        set_id,
        file_sha256,
        'run_complete' as metric,
        'all' as group_key,
        'set' as cluster_id,
        case when is_complete then 1.0 else 0.0 end as metric_value
    from logs

),

{{ cluster_mean_stats('observations') }},

final as (

    select
        set_id,
        file_sha256,
        'inspect' as agent,
        metric,
        metric_value,
        n_obs,
        n_clusters,
        std_error,
        {{ scoring_version('inspect') }} as scoring_version
    from metric_stats

)

select * from final
