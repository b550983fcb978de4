{{ config(
    materialized='set_incremental',
    sets_model='int_promptfoo__output_sets',
) }}
-- One row per (promptfoo set, scorer, metric): the pass rate of `overall`
-- (results that succeeded over results), the mean of every scorer
-- (`overall`: the results' scores; an assertion: its scores where it
-- applies), computed here from the items with a 95% interval clustered by
-- test (Wilson's for the pass rate, the t interval within [0, 1] for a
-- mean), beside the figure promptfoo reported for the column
-- (tool_reported_value; none for a .jsonl output). agrees_with_tool is
-- false when both are defined and differ by more than 1e-9 (data test: a
-- verdict on the night).
with

sets as (

    select * from {{ unbuilt(ref('int_promptfoo__output_sets')) }}

),

stats as (

    select * from {{ unbuilt(ref('int_promptfoo__set_stats')) }}

),

reported as (

    select * from {{ unbuilt(ref('int_promptfoo__reported_scores')) }}

),

scorers as (

    select distinct
        set_id,
        scorer
    from {{ unbuilt(ref('promptfoo_item_scores')) }}

),

metric_rows as (

    select
        set_id,
        'overall' as scorer,
        'pass_rate' as metric,
        'pass_rate' as stats_metric
    from sets

    union all

    select
        set_id,
        scorer,
        'mean' as metric,
        scorer as stats_metric
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
        reported.tool_reported_value
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

-- within [0, 1]: Wilson's for the pass rate, the t interval cut at the
-- scale's ends for a mean (macro interval_bound)
{{ imported_set_scores(
    'promptfoo', 'sets',
    scale_min='0', scale_max='1',
    is_proportion="computed.metric = 'pass_rate'",
    n_obs='computed.n_obs'
) }}

select * from final
