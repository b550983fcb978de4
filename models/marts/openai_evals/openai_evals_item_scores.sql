{{ config(materialized='set_incremental', kind='openai_evals_record') }}
-- One row per (set, sample, epoch, scorer) of the current version of each
-- OpenAI Evals record file. A scorer is `match` (each match event: value
-- 1 or 0, pass = its `correct`) or a key of the metrics events that holds
-- a number in the run (value the number, true 1 and false 0, null
-- unscored; pass by seed openai_evals_pass_rules); a metrics key that only
-- holds text (a model-graded `choice`) is no scorer, its values are the
-- explanation. evals has no epochs: the k-th event of a scorer in a sample
-- (by event_id) is its epoch k. Each scoring event judges the sampling
-- events of its sample since the scorer's previous event in that sample:
-- the first one's prompt is the input, the last one's answer the
-- completion (unless the match event records what it judged), their
-- token usage the item's. Only the sets to build are read
-- (unbuilt).
with

runs as (

    select * from {{ unbuilt(ref('int_openai_evals__runs_current')) }}

),

events as (

    select
        * exclude (data_json),  -- noqa: RF02
        cast(data_json as json) as data_json
    from {{ unbuilt(ref('openai_evals_events')) }}

),

pass_rules as (

    select * from {{ ref('openai_evals_pass_rules') }}

),

match_scores as (

    select
        set_id,
        line_number,
        event_id,
        sample_id,
        'match' as scorer,
        data_json ->> '$.correct' as value_raw,
        case when is_correct then 1.0 else 0.0 end as value,
        is_correct as is_pass,
        {{ openai_evals_json_text("data_json -> '$.expected'") }} as target,
        {{ openai_evals_json_text("data_json -> '$.picked'") }} as answer,
        {{ openai_evals_sampled_text("data_json -> '$.sampled'") }}
            as judged_completion,
        cast(null as varchar) as explanation
    from events
    where event_type = 'match'

),

metrics_entries as (

    select
        set_id,
        line_number,
        event_id,
        sample_id,
        unnest(map_entries(json_transform(
            data_json, '"MAP(VARCHAR, JSON)"'
        ))) as entry
    from events
    where event_type = 'metrics'

),

metrics_typed as (

    select
        metrics_entries.set_id,
        metrics_entries.line_number,
        metrics_entries.event_id,
        metrics_entries.sample_id,
        metrics_entries.entry.key as metric_key,
        metrics_entries.entry.value as value_json,
        json_type(metrics_entries.entry.value) as value_type
    from metrics_entries

),

numeric_keys as (

    -- the keys that hold a number somewhere in the run: its scorers
    select distinct
        set_id,
        metric_key
    from metrics_typed
    where value_type in ('BIGINT', 'UBIGINT', 'DOUBLE', 'BOOLEAN')

),

metrics_labels as (

    -- the other keys' values (text, lists): the event's explanation
    select
        metrics_typed.set_id,
        metrics_typed.line_number,
        string_agg(
            metrics_typed.metric_key || ': '
            || {{ openai_evals_json_text('metrics_typed.value_json') }},
            '; ' order by metrics_typed.metric_key
        ) as explanation
    from metrics_typed
    where
        metrics_typed.value_type <> 'NULL'
        and not exists (
            select 1
            from numeric_keys
            where
                numeric_keys.set_id = metrics_typed.set_id
                and numeric_keys.metric_key = metrics_typed.metric_key
        )
    group by metrics_typed.set_id, metrics_typed.line_number

),

metrics_scores as (

    select
        metrics_typed.set_id,
        metrics_typed.line_number,
        metrics_typed.event_id,
        metrics_typed.sample_id,
        metrics_typed.metric_key as scorer,
        cast(metrics_typed.value_json as varchar) as value_raw,
        {{ openai_evals_value('metrics_typed.value_json') }} as value,
        cast(null as boolean) as is_pass,
        cast(null as varchar) as target,
        cast(null as varchar) as answer,
        cast(null as varchar) as judged_completion,
        metrics_labels.explanation
    from metrics_typed
    inner join numeric_keys
        on
            metrics_typed.set_id = numeric_keys.set_id
            and metrics_typed.metric_key = numeric_keys.metric_key
    left join metrics_labels
        on
            metrics_typed.set_id = metrics_labels.set_id
            and metrics_typed.line_number = metrics_labels.line_number

),

scores as (

    select * from match_scores
    union all
    select * from metrics_scores

),

scores_ordered as (

    select
        *,
        row_number() over (
            partition by set_id, sample_id, scorer order by event_id
        ) as epoch,
        coalesce(
            lag(event_id) over (
                partition by set_id, sample_id, scorer order by event_id
            ),
            -1
        ) as previous_event_id
    from scores

),

sampling as (

    select
        events.set_id,
        events.sample_id,
        events.event_id,
        {{ openai_evals_prompt_text("events.data_json -> '$.prompt'") }}
            as prompt_text,
        {{ openai_evals_sampled_text("events.data_json -> '$.sampled'") }}
            as sampled_text,
        events.prompt_tokens,
        events.completion_tokens
    from events
    where events.event_type = 'sampling'

),

judged_sampling as (

    select
        scores_ordered.set_id,
        scores_ordered.line_number,
        scores_ordered.scorer,
        arg_min(sampling.prompt_text, sampling.event_id) as input,
        arg_max(sampling.sampled_text, sampling.event_id) as completion,
        sum(sampling.prompt_tokens) as input_tokens,
        sum(sampling.completion_tokens) as output_tokens
    from scores_ordered
    inner join sampling
        on
            scores_ordered.set_id = sampling.set_id
            and scores_ordered.sample_id = sampling.sample_id
            and scores_ordered.previous_event_id < sampling.event_id
            and scores_ordered.event_id > sampling.event_id
    group by
        scores_ordered.set_id, scores_ordered.line_number, scores_ordered.scorer

),

sample_errors as (

    select
        set_id,
        sample_id,
        string_agg(
            coalesce(
                data_json ->> '$.message', cast(data_json as varchar)
            ),
            '; ' order by event_id
        ) as error
    from events
    where event_type = 'error'
    group by set_id, sample_id

),

final as (

    select
        scores_ordered.set_id,
        runs.file_sha256,
        runs.drop_date,
        scores_ordered.line_number,
        scores_ordered.sample_id,
        cast(scores_ordered.epoch as integer) as epoch,
        scores_ordered.scorer,
        judged_sampling.input,
        scores_ordered.target,
        coalesce(
            scores_ordered.answer,
            scores_ordered.judged_completion,
            judged_sampling.completion
        ) as answer,
        coalesce(scores_ordered.judged_completion, judged_sampling.completion)
            as completion,
        scores_ordered.value_raw,
        scores_ordered.value,
        coalesce(
            scores_ordered.is_pass,
            scores_ordered.value
            >= coalesce(own_rule.min_value, any_rule.min_value),
            false
        ) as is_pass,
        scores_ordered.explanation,
        sample_errors.error,
        cast(null as double) as latency_sec,
        cast(judged_sampling.input_tokens as bigint) as input_tokens,
        cast(judged_sampling.output_tokens as bigint) as output_tokens,
        cast(null as double) as total_cost,
        scores_ordered.event_id,
        case
            when scores_ordered.scorer = 'match' then 'match' else 'metrics'
        end as event_type,
        {{ scoring_version('openai_evals') }} as scoring_version
    from scores_ordered
    inner join runs
        on scores_ordered.set_id = runs.set_id
    left join judged_sampling
        on
            scores_ordered.set_id = judged_sampling.set_id
            and scores_ordered.line_number = judged_sampling.line_number
            and scores_ordered.scorer = judged_sampling.scorer
    left join sample_errors
        on
            scores_ordered.set_id = sample_errors.set_id
            and scores_ordered.sample_id = sample_errors.sample_id
    left join pass_rules as own_rule
        on scores_ordered.scorer = own_rule.scorer
    left join pass_rules as any_rule
        on any_rule.scorer = '*'

)

select * from final
