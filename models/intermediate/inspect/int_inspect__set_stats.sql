{{ config(materialized='set_incremental', kind='inspect_log') }}
-- One row per (Inspect AI log, metric): each scorer's mean over samples of
-- the epoch-reduced value (Inspect's accuracy / mean), and the tokens per
-- sample record, with n and the standard error clustered by sample (each
-- sample its own cluster: Inspect's stderr, std(ddof 1) / sqrt(n));
-- macros/history.sql. The log's cost (when it records one) and whether it
-- finished (run_complete: 1 for status success) are one value each, with
-- no interval.
with

logs as (

    select * from {{ unbuilt(ref('int_inspect__logs_current')) }}

),

sample_scores as (

    select * from {{ unbuilt(ref('int_inspect__sample_scores')) }}

),

items as (

    select * from {{ unbuilt(ref('inspect_item_scores')) }}

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

{% call imported_set_stats('inspect') %}
    {{ set_observations(
        'sample_scores', 'scorer', 'reduced_value'
    ) }}

    union all

    {{ set_observations(
        'sample_records', "'tokens_per_sample'",
        'coalesce(input_tokens, 0) + coalesce(output_tokens, 0)',
        where='input_tokens is not null or output_tokens is not null'
    ) }}

    union all

    {{ set_cost_observations('sample_records') }}

    union all

    -- 1 when the log finished (status success): a gate can require it
    {{ set_observations(
        'logs', "'run_complete'",
        'case when is_complete then 1.0 else 0.0 end', cluster_id="'set'"
    ) }}
{% endcall %},

final as (

    select * from set_stats

)

select * from final
