{{ config(materialized='set_incremental', kind='openai_evals_record') }}
-- One row per evaluation set of an imported tool (an OpenAI Evals record
-- file: one run): the run, its series (tool, eval, completion functions),
-- its status (a file without its final report is a run that did not
-- finish: marked incomplete, never silently a complete run), its samples,
-- events and tokens as the sampling events record them.
with

runs as (

    select * from {{ unbuilt(ref('int_openai_evals__runs_current')) }}

),

items as (

    select * from {{ unbuilt(ref('openai_evals_item_scores')) }}

),

events as (

    select * from {{ unbuilt(ref('openai_evals_events')) }}

),

headline as (

    -- match when the run has match events, else its first scorer by name
    select
        set_id,
        case
            when bool_or(scorer = 'match') then 'match' else min(scorer)
        end as headline_scorer
    from items
    group by set_id

),

item_counts as (

    select
        items.set_id,
        count(distinct items.sample_id) as n_samples,
        max(items.epoch) filter (
            where items.scorer = headline.headline_scorer
        ) as n_epochs,
        count(*) filter (
            where items.scorer = headline.headline_scorer
        ) as n_sample_records,
        count(items.error) filter (
            where items.scorer = headline.headline_scorer
        ) as n_errored,
        count(*) filter (
            where items.scorer = headline.headline_scorer and items.is_pass
        ) as n_passed
    from items
    inner join headline
        on items.set_id = headline.set_id
    group by items.set_id

),

sample_tokens as (

    select
        set_id,
        sample_id,
        sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0))
            as n_tokens
    from events
    where prompt_tokens is not null or completion_tokens is not null
    group by set_id, sample_id

),

event_counts as (

    select
        set_id,
        count(*) as n_events,
        count(*) filter (where event_type = 'match') as n_match_events,
        count(*) filter (where event_type = 'metrics') as n_metrics_events,
        count(*) filter (where event_type = 'sampling') as n_sampling_events,
        count(*) filter (where event_type = 'error') as n_error_events,
        sum(prompt_tokens) as input_tokens,
        sum(completion_tokens) as output_tokens,
        sum(total_tokens) as total_tokens
    from events
    group by set_id

),

token_means as (

    select
        set_id,
        {{ exact_avg('n_tokens') }} as tokens_per_sample
    from sample_tokens
    group by set_id

),

final as (

    select
        runs.set_id,
        runs.series_id,
        runs.tool,
        -- the record file names no evals release
        cast(null as varchar) as tool_version,
        -- nor a format version: the spec line and the events are the format
        cast(null as integer) as format_version,
        runs.run_id,
        runs.eval_name as task,
        runs.completion_fns as model,
        -- the eval holds its prompts: no prompt dimension
        cast(null as varchar) as prompt,
        runs.created_at,
        runs.status,
        runs.is_complete,
        case
            when not runs.is_complete
                then 'no final report: the run did not finish'
        end as run_error,
        headline.headline_scorer,
        cast(coalesce(item_counts.n_samples, 0) as bigint) as n_samples,
        cast(item_counts.n_epochs as integer) as n_epochs,
        cast(coalesce(item_counts.n_sample_records, 0) as bigint)
            as n_sample_records,
        cast(coalesce(item_counts.n_errored, 0) as bigint) as n_errored,
        cast(coalesce(item_counts.n_passed, 0) as bigint) as n_passed,
        cast(event_counts.input_tokens as bigint) as input_tokens,
        cast(event_counts.output_tokens as bigint) as output_tokens,
        -- evals records no cost
        cast(null as double) as total_cost,
        token_means.tokens_per_sample,
        runs.drop_date,
        runs.set_id as source_file,
        runs.file_sha256,
        runs.eval_name,
        runs.base_eval,
        runs.eval_split,
        runs.completion_fns,
        runs.eval_class,
        runs.eval_args_json,
        runs.created_by,
        runs.seed,
        runs.max_samples,
        runs.command,
        cast(coalesce(event_counts.n_events, 0) as bigint) as n_events,
        cast(coalesce(event_counts.n_match_events, 0) as bigint)
            as n_match_events,
        cast(coalesce(event_counts.n_metrics_events, 0) as bigint)
            as n_metrics_events,
        cast(coalesce(event_counts.n_sampling_events, 0) as bigint)
            as n_sampling_events,
        cast(coalesce(event_counts.n_error_events, 0) as bigint)
            as n_error_events,
        cast(event_counts.total_tokens as bigint) as total_tokens,
        cast(runs.final_report_json as varchar) as final_report_json,
        runs.final_report_line,
        {{ scoring_version('openai_evals') }} as scoring_version
    from runs
    left join headline
        on runs.set_id = headline.set_id
    left join item_counts
        on runs.set_id = item_counts.set_id
    left join event_counts
        on runs.set_id = event_counts.set_id
    left join token_means
        on runs.set_id = token_means.set_id

)

select * from final
