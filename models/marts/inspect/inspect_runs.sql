{{ config(materialized='set_incremental', kind='inspect_log') }}
-- One row per evaluation set of an imported tool (an Inspect AI log): the
-- run, its series (tool, task, model), its status (an unfinished log is
-- marked incomplete, never silently a complete run), its samples and its
-- tokens and cost as the log records them.
with

logs as (

    select * from {{ unbuilt(ref('int_inspect__logs_current')) }}

),

items as (

    select * from {{ unbuilt(ref('inspect_item_scores')) }}

),

sample_records as (

    select distinct
        set_id,
        sample_id,
        epoch,
        error,
        input_tokens,
        output_tokens,
        total_cost
    from items

),

log_counts as (

    select
        set_id,
        count(distinct sample_id) as n_samples,
        count(*) as n_sample_records,
        count(error) as n_errored,
        sum(input_tokens) as input_tokens,
        sum(output_tokens) as output_tokens,
        sum(total_cost) as total_cost,
        -- over the records that report their usage (an errored sample may not)
        {{ exact_avg(
            'case when input_tokens is not null or output_tokens is not null'
            ~ ' then coalesce(input_tokens, 0) + coalesce(output_tokens, 0) end'
        ) }} as tokens_per_sample
    from sample_records
    group by set_id

),

final as (

    select
        logs.set_id,
        logs.series_id,
        logs.tool,
        logs.tool_version,
        logs.log_version as format_version,
        logs.run_id,
        logs.eval_id,
        logs.task,
        logs.task_version,
        logs.model,
        -- Inspect's series has no prompt dimension (the task holds it)
        cast(null as varchar) as prompt,
        logs.created_at,
        logs.status,
        logs.is_complete,
        logs.log_error as run_error,
        logs.headline_scorer,
        cast(coalesce(log_counts.n_samples, 0) as bigint) as n_samples,
        cast(logs.n_epochs as integer) as n_epochs,
        cast(coalesce(log_counts.n_sample_records, 0) as bigint)
            as n_sample_records,
        cast(coalesce(log_counts.n_errored, 0) as bigint) as n_errored,
        cast(log_counts.input_tokens as bigint) as input_tokens,
        cast(log_counts.output_tokens as bigint) as output_tokens,
        log_counts.total_cost,
        log_counts.tokens_per_sample,
        logs.drop_date,
        logs.set_id as source_file,
        logs.file_sha256,
        {{ scoring_version('inspect') }} as scoring_version
    from logs
    left join log_counts
        on logs.set_id = log_counts.set_id

)

select * from final
