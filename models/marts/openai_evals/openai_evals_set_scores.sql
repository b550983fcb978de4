{{ config(materialized='set_incremental', kind='openai_evals_record') }}
-- One row per (OpenAI Evals run, scorer, metric): each scorer's figure
-- computed here from the items (match: accuracy, the share of match events
-- recorded correct as evals' get_accuracy; a metrics key: mean, evals'
-- np.mean) with its 95% interval clustered by sample, beside the figure
-- the run's final report holds (tool_reported_value; none for a run that
-- did not finish); and a row for every other figure of the final report:
-- the token usage (usage, <k>: the sampling events' usage summed here), a
-- model-graded eval's choice counts (choice, counts/<choice>: counted
-- here), the bootstrap std (match, boostrap_std) and other keys, which
-- the warehouse does not recompute (value null). agrees_with_tool is false
-- when both are defined and differ by more than 1e-9 (data test: a
-- verdict on the night).
with

runs as (

    select * from {{ unbuilt(ref('int_openai_evals__runs_current')) }}

),

stats as (

    select * from {{ unbuilt(ref('int_openai_evals__set_stats')) }}

),

reported as (

    select * from {{ unbuilt(ref('int_openai_evals__reported_scores')) }}

),

items as (

    select * from {{ unbuilt(ref('openai_evals_item_scores')) }}

),

events as (

    select
        * exclude (data_json),  -- noqa: RF02
        cast(data_json as json) as data_json
    from {{ unbuilt(ref('openai_evals_events')) }}
    where
        event_type in ('sampling', 'metrics')

),

scorers as (

    select distinct
        set_id,
        scorer,
        case when scorer = 'match' then 'accuracy' else 'mean' end as metric
    from items

),

metric_rows as (

    select
        set_id,
        scorer,
        metric
    from scorers

    union

    select
        set_id,
        scorer,
        metric
    from reported

),

usage_entries as (

    select
        events.set_id,
        unnest(map_entries(json_transform(
            events.data_json -> '$.usage', '"MAP(VARCHAR, JSON)"'
        ))) as entry
    from events
    where
        events.event_type = 'sampling'
        and json_type(events.data_json -> '$.usage') = 'OBJECT'

),

usage_sums as (

    select
        usage_entries.set_id,
        'usage' as scorer,
        usage_entries.entry.key as metric,
        sum({{ json_finite_number('usage_entries.entry.value') }}) as value
    from usage_entries
    group by usage_entries.set_id, usage_entries.entry.key

),

choice_counts as (

    select
        set_id,
        'choice' as scorer,
        'counts/' || (data_json ->> '$.choice') as metric,
        cast(count(*) as double) as value
    from events
    where
        event_type = 'metrics'
        and json_type(data_json -> '$.choice') = 'VARCHAR'
    group by set_id, data_json ->> '$.choice'

),

counted as (

    select * from usage_sums
    union all
    select * from choice_counts

),

computed as (

    select
        metric_rows.set_id,
        metric_rows.scorer,
        metric_rows.metric,
        case
            when
                metric_rows.metric in ('accuracy', 'mean')
                and metric_rows.scorer = stats.metric
                then stats.metric_value
            else counted.value
        end as value,
        stats.n_clusters as n_samples,
        stats.n_obs,
        stats.std_error,
        {{ t_critical_975('stats.n_clusters - 1') }} as t_critical,
        reported.tool_reported_value
    from metric_rows
    left join stats
        on
            metric_rows.set_id = stats.set_id
            and metric_rows.scorer = stats.metric
            and metric_rows.metric in ('accuracy', 'mean')
    left join counted
        on
            metric_rows.set_id = counted.set_id
            and metric_rows.scorer = counted.scorer
            and metric_rows.metric = counted.metric
    left join reported
        on
            metric_rows.set_id = reported.set_id
            and metric_rows.scorer = reported.scorer
            and metric_rows.metric = reported.metric

),

-- within the scorer's range as seed history_metrics declares it (match:
-- a share, Wilson's interval; a metrics key: its own row, else none)
{{ imported_set_scores(
    'openai_evals', 'runs',
    scale_min=history_metric_scale(
        'openai_evals', 'computed.scorer', 'scale_min'
    ),
    scale_max=history_metric_scale(
        'openai_evals', 'computed.scorer', 'scale_max'
    ),
    is_proportion=history_metric_scale(
        'openai_evals', 'computed.scorer', 'is_proportion'
    ),
    n_obs='computed.n_obs'
) }}

select * from final
