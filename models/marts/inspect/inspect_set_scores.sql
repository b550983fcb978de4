{{ config(materialized='set_incremental', kind='inspect_log') }}
-- One row per (set, scorer, metric) of an imported tool's run: the metric
-- computed here from the items (accuracy and mean: the mean over samples of
-- the epoch-reduced value; stderr: clustered by sample; std), its 95%
-- interval, and the figure the log itself reports (tool_reported_value).
-- The metrics are the ones the log reports for the scorer (mean when it
-- reports none: an unfinished log); one this warehouse does not compute
-- has value null. agrees_with_tool is false when both define the metric
-- and differ by more than 1e-9 (data test: a verdict on the night).
with

logs as (

    select * from {{ unbuilt(ref('int_inspect__logs_current')) }}

),

stats as (

    select * from {{ unbuilt(ref('int_inspect__set_stats')) }}

),

reported as (

    select
        set_id,
        scorer,
        metric,
        tool_reported_value
    from {{ unbuilt(ref('int_inspect__reported_scores')) }}

),

scorer_stats as (

    select stats.*
    from stats
    where
        stats.metric not in ('tokens_per_sample', 'total_cost', 'run_complete')

),

metric_rows as (

    -- the metrics the log reports; mean for a scorer it reports none of
    select
        set_id,
        scorer,
        metric,
        tool_reported_value
    from reported

    union all

    select
        scorer_stats.set_id,
        scorer_stats.metric as scorer,
        'mean' as metric,
        null as tool_reported_value
    from scorer_stats
    where
        not exists (
            select 1
            from reported
            where
                reported.set_id = scorer_stats.set_id
                and reported.scorer = scorer_stats.metric
        )

),

computed as (

    select
        metric_rows.set_id,
        metric_rows.scorer,
        metric_rows.metric,
        metric_rows.tool_reported_value,
        scorer_stats.n_obs as n_samples,
        scorer_stats.n_clusters,
        scorer_stats.metric_value as mean_value,
        scorer_stats.std_error,
        {{ t_critical_975('scorer_stats.n_clusters - 1') }} as t_critical,
        case metric_rows.metric
            when 'accuracy' then scorer_stats.metric_value
            when 'mean' then scorer_stats.metric_value
            when 'stderr' then coalesce(scorer_stats.std_error, 0)
            when 'std'
                then coalesce(
                    scorer_stats.std_error * sqrt(scorer_stats.n_clusters), 0
                )
        end as value
    from metric_rows
    left join scorer_stats
        on
            metric_rows.set_id = scorer_stats.set_id
            and metric_rows.scorer = scorer_stats.metric

),

-- accuracy is a share (value_to_float of C / P / I): within [0, 1]; a
-- mean of a scorer's numbers has no known range (macro interval_bound)
{{ imported_set_scores(
    'inspect', 'logs',
    scale_min="case when computed.metric = 'accuracy' then 0.0 end",
    scale_max="case when computed.metric = 'accuracy' then 1.0 end",
    is_proportion='false',
    interval_when="computed.metric in ('accuracy', 'mean')"
) }}

select * from final
