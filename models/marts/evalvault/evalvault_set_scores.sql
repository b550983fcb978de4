{{ config(materialized='set_incremental', kind='evalvault_run') }}
-- One row per (EvalVault export, scorer, metric): the run's pass rate
-- (scorer overall: test cases that pass every metric over test cases) and
-- each metric's mean and pass rate (its scores that reach the run's
-- threshold over its scores), computed here from the items with a 95%
-- interval (each test case its own cluster), beside the figure EvalVault
-- reported (tool_reported_value: the Summary sheet's pass rate and the
-- MetricsSummary sheet's avg_score and pass_rate; the JSON export's
-- pass_rate and avg_<metric>). agrees_with_tool is false when both are
-- defined and differ by more than 1e-9 (data test: a verdict on the
-- night).
with

runs as (

    select * from {{ unbuilt(ref('int_evalvault__runs_current')) }}

),

stats as (

    select * from {{ unbuilt(ref('int_evalvault__set_stats')) }}

),

reported as (

    select * from {{ unbuilt(ref('int_evalvault__reported_scores')) }}

),

scorers as (

    -- the metrics scored here, and the ones EvalVault reports a figure
    -- for (one whose every score was rejected shows the figure alone)
    select
        set_id,
        scorer
    from {{ unbuilt(ref('evalvault_item_scores')) }}
    where
        scorer <> 'overall'

    union

    select
        set_id,
        scorer
    from reported
    where scorer <> 'overall'

),

metric_rows as (

    select
        set_id,
        'overall' as scorer,
        'pass_rate' as metric,
        'pass_rate' as stats_metric
    from runs

    union all

    select
        set_id,
        scorer,
        'mean' as metric,
        scorer as stats_metric
    from scorers

    union all

    select
        set_id,
        scorer,
        'pass_rate' as metric,
        'pass_rate:' || scorer as stats_metric
    from scorers

),

computed as (

    select
        metric_rows.set_id,
        metric_rows.scorer,
        metric_rows.metric,
        stats.metric_value as value,
        stats.n_clusters as n_samples,
        stats.n_obs,
        stats.std_error,
        {{ t_critical_975('stats.n_clusters - 1') }} as t_critical,
        reported.tool_reported_value,
        reported.tool_reported_n
    from metric_rows
    left join stats
        on
            metric_rows.set_id = stats.set_id
            and metric_rows.stats_metric = stats.metric
    left join reported
        on
            metric_rows.set_id = reported.set_id
            and metric_rows.scorer = reported.scorer
            and metric_rows.metric = reported.metric

),

-- within [0, 1] (EvalVault's scores; seed history_metrics): Wilson's
-- for a pass rate, the t interval cut at the scale's ends for a mean
{{ imported_set_scores(
    'evalvault', 'runs',
    scale_min='0', scale_max='1',
    is_proportion="computed.metric = 'pass_rate'",
    n_obs='computed.n_obs',
    columns_before_version=[
        'cast(computed.tool_reported_n as bigint) as tool_reported_n'
    ]
) }}

select * from final
