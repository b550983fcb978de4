{{ config(
    materialized='set_incremental',
    sets_model='int_lm_eval__task_sets',
    version_column='set_version',
    built_version_column='file_sha256',
) }}
-- One row per (lm-eval set, scorer, metric): for a scorer lm-eval
-- aggregates by mean (acc, acc_norm, exact_match, ...), `mean` (the mean
-- over documents) and `stderr` (clustered by document: lm-eval's
-- mean_stderr), computed here from the items with a 95% interval, beside
-- the figure lm-eval reported in the results file (tool_reported_value);
-- for any other (bleu, perplexity, ...: corpus metrics), the aggregation's
-- name and `stderr`, with value null (not computed here) and lm-eval's
-- figure kept. agrees_with_tool is false when both are defined and differ
-- by more than 1e-9 (data test: a verdict on the night).
with

sets as (

    select * from {{ unbuilt(ref('int_lm_eval__task_sets'), 'set_version') }}

),

stats as (

    select * from {{ unbuilt(ref('int_lm_eval__set_stats')) }}

),

reported as (

    -- one row per reported figure of every current set (a few per task):
    -- the sets to build are chosen by the join with `sets`
    select * from {{ ref('int_lm_eval__reported_scores') }}

),

metric_scales as (

    select
        metric,
        scale_min,
        scale_max,
        is_proportion
    from {{ ref('lm_eval_metric_aggregations') }}

),

scorers as (

    select
        set_id,
        scorer,
        aggregation,
        count(distinct sample_id) as n_docs
    from {{ unbuilt(ref('lm_eval_item_scores')) }}
    group by set_id, scorer, aggregation

),

metric_rows as (

    -- the figures lm-eval reported; mean and stderr of a mean scorer it
    -- reported none of
    select
        reported.set_id,
        reported.scorer,
        reported.aggregation,
        reported.metric,
        reported.tool_reported_value
    from reported
    inner join sets
        on reported.set_id = sets.set_id

    union all

    select
        scorers.set_id,
        scorers.scorer,
        scorers.aggregation,
        metric_names.metric,
        null as tool_reported_value
    from scorers
    cross join (values ('mean'), ('stderr')) as metric_names (metric)
    where
        scorers.aggregation = 'mean'
        and not exists (
            select 1
            from reported
            where
                reported.set_id = scorers.set_id
                and reported.scorer = scorers.scorer
        )

),

computed as (

    select
        metric_rows.set_id,
        metric_rows.scorer,
        metric_rows.metric,
        metric_rows.tool_reported_value,
        coalesce(stats.n_clusters, scorers.n_docs) as n_samples,
        stats.n_obs,
        stats.std_error,
        metric_scales.scale_min,
        metric_scales.scale_max,
        metric_scales.is_proportion,
        {{ t_critical_975('stats.n_clusters - 1') }} as t_critical,
        case
            when metric_rows.aggregation != 'mean' then null
            when metric_rows.metric = 'mean' then stats.metric_value
            when metric_rows.metric = 'stderr' then stats.std_error
        end as value
    from metric_rows
    left join stats
        on
            metric_rows.set_id = stats.set_id
            and metric_rows.scorer = stats.metric
            and metric_rows.aggregation = 'mean'
    left join scorers
        on
            metric_rows.set_id = scorers.set_id
            and metric_rows.scorer = scorers.scorer
    left join metric_scales
        on split_part(metric_rows.scorer, ',', 1) = metric_scales.metric

),

-- the mean within the metric's range (seed lm_eval_metric_aggregations:
-- acc, exact_match, ... are shares, Wilson's interval; a metric of no
-- declared range keeps the t interval)
{{ imported_set_scores(
    'lm_eval', 'sets',
    scale_min='computed.scale_min', scale_max='computed.scale_max',
    is_proportion='coalesce(computed.is_proportion, false)',
    n_obs='computed.n_obs',
    interval_when="computed.metric = 'mean'",
    columns_before_version=[
        "split_part(computed.scorer, ',', 1) as metric_name",
        "substr(computed.scorer, length(split_part(computed.scorer, ',', 1)) + 2)
            as filter_name",
    ]
) }}

select * from final
