{{ config(materialized='set_incremental', kind='every_eval_ever_aggregate') }}
-- One row per (Every Eval Ever aggregate, history metric): for an
-- evaluation result with instance lines, the mean of their scores with n
-- and the standard error clustered by sample (macros/history.sql); for a
-- result without (an aggregate-only file, a result no line links to), the
-- figure the file reports, its samples as n and no error of the
-- warehouse's (value_source `reported`); and the tokens per sample record
-- over the records that report their usage.
with

items as (

    select * from {{ unbuilt(ref('every_eval_ever_item_scores')) }}

),

results as (

    select * from {{ unbuilt(ref('int_every_eval_ever__results')) }}

),

linked as (

    select
        items.set_id,
        items.file_sha256,
        results.history_metric as metric,
        items.sample_id,
        items.value
    from items
    inner join results
        on
            items.set_id = results.set_id
            and items.result_index = results.result_index

),

sample_records as (

    -- a sample's tokens, once however many results its lines score
    select
        set_id,
        file_sha256,
        sample_id,
        epoch,
        max(input_tokens) as input_tokens,
        max(output_tokens) as output_tokens
    from items
    group by set_id, file_sha256, sample_id, epoch

),

{% call imported_set_stats('every_eval_ever') %}
    {{ set_observations(
        'linked', 'metric', 'value'
    ) }}

    union all

    {{ set_observations(
        'sample_records', "'tokens_per_sample'",
        'coalesce(input_tokens, 0) + coalesce(output_tokens, 0)',
        where='input_tokens is not null or output_tokens is not null'
    ) }}
{% endcall %},

reported_only as (

    select
        results.set_id,
        results.file_sha256,
        results.history_metric as metric,
        results.tool_reported_value as metric_value,
        results.tool_num_samples as n_obs
    from results
    where
        results.tool_reported_value is not null
        and not exists (
            select 1
            from linked
            where
                linked.set_id = results.set_id
                and linked.metric = results.history_metric
        )

),

final as (

    select
        set_id,
        file_sha256,
        agent,
        metric,
        'instances' as value_source,
        metric_value,
        n_obs,
        n_clusters,
        std_error,
        scoring_version
    from set_stats

    union all

    select
        set_id,
        file_sha256,
        'every_eval_ever' as agent,
        metric,
        'reported' as value_source,
        metric_value,
        n_obs,
        cast(null as bigint) as n_clusters,
        cast(null as double) as std_error,
        {{ scoring_version('every_eval_ever') }} as scoring_version
    from reported_only

)

select * from final
