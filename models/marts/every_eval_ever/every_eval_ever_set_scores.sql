{{ config(materialized='set_incremental', kind='every_eval_ever_aggregate') }}
-- One row per evaluation result of an Every Eval Ever aggregate (scorer,
-- metric): the mean of its instance lines' scores computed here, with n,
-- the standard error clustered by sample and its 95% interval, beside the
-- figures the file reports (tool_reported_value: score_details.score; its
-- standard error and interval when given). A result no instance line
-- scores keeps its reported figure and a null value. agrees_with_tool is
-- false when both are defined and differ by more than 1e-9 (data test: a
-- verdict on the night).
with

aggregates as (

    select * from {{ unbuilt(ref('int_every_eval_ever__aggregates_current')) }}

),

results as (

    select * from {{ unbuilt(ref('int_every_eval_ever__results')) }}

),

stats as (

    select * from {{ unbuilt(ref('int_every_eval_ever__set_stats')) }}
    where
        value_source = 'instances'

),

computed as (

    select
        results.*,
        stats.metric_value as value,
        stats.n_clusters as n_samples,
        stats.n_obs as n_instances,
        stats.std_error,
        {{ t_critical_975('stats.n_clusters - 1') }} as t_critical
    from results
    left join stats
        on
            results.set_id = stats.set_id
            and results.history_metric = stats.metric

),

-- within the result's range (the file's min_score, max_score); a binary
-- score on [0, 1] is a share: Wilson's interval. Then the result as the
-- file describes it, and the file's uncertainty figures.
{{ imported_set_scores(
    'every_eval_ever', 'aggregates',
    scale_min='computed.min_score', scale_max='computed.max_score',
    is_proportion="coalesce(
        computed.score_type = 'binary'
        and computed.min_score = 0 and computed.max_score = 1, false
    )",
    n_obs='computed.n_instances',
    columns_after_version=[
        'computed.result_index',
        'computed.history_metric',
        'computed.evaluation_name',
        'computed.evaluation_result_id',
        'computed.dataset_name',
        'computed.metric_id',
        'computed.metric_kind',
        'computed.metric_unit',
        'computed.evaluation_description',
        'computed.lower_is_better',
        'computed.score_type',
        'computed.min_score',
        'computed.max_score',
        'cast(computed.n_instances as bigint) as n_instances',
        'computed.tool_std_error',
        'computed.tool_std_error_method',
        'computed.tool_ci_low',
        'computed.tool_ci_high',
        'computed.tool_confidence_level',
        'computed.tool_ci_method',
        'computed.tool_std_dev',
        'computed.tool_num_samples'
    ]
) }}

select * from final
