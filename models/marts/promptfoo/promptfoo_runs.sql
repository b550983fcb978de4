{{ config(
    materialized='set_incremental',
    sets_model='int_promptfoo__output_sets',
) }}
-- One row per promptfoo set (an output's column: provider x prompt): the
-- run (promptfoo's evalId), its series (promptfoo, description, provider,
-- prompt), its tests, repeats, results and errors, tokens (the model's
-- and the graders') and cost. A promptfoo output is written when the eval
-- has finished: every set is complete.
with

sets as (

    select * from {{ unbuilt(ref('int_promptfoo__output_sets')) }}

),

results as (

    select * from {{ unbuilt(ref('promptfoo_item_scores')) }}
    where
        scorer = 'overall'

),

result_counts as (

    select
        set_id,
        count(distinct sample_id) as n_samples,
        max(epoch) as n_epochs,
        count(*) as n_sample_records,
        count(error) as n_errored,
        count(*) filter (where is_pass) as n_passed,
        sum(input_tokens) as input_tokens,
        sum(output_tokens) as output_tokens,
        sum(total_cost) as total_cost,
        {{ exact_avg(
            'case when input_tokens is not null or output_tokens is not null'
            ~ ' then coalesce(input_tokens, 0) + coalesce(output_tokens, 0) end'
        ) }} as tokens_per_sample
    from results
    group by set_id

),

final as (

    select
        sets.set_id,
        sets.series_id,
        sets.tool,
        sets.tool_version,
        sets.format_version,
        sets.eval_id as run_id,
        sets.task,
        sets.provider as model,
        sets.prompt_label as prompt,
        sets.created_at,
        'success' as status,
        true as is_complete,
        cast(null as varchar) as run_error,
        'overall' as headline_scorer,
        cast(coalesce(result_counts.n_samples, 0) as bigint) as n_samples,
        cast(result_counts.n_epochs as integer) as n_epochs,
        cast(coalesce(result_counts.n_sample_records, 0) as bigint)
            as n_sample_records,
        cast(coalesce(result_counts.n_errored, 0) as bigint) as n_errored,
        cast(coalesce(result_counts.n_passed, 0) as bigint) as n_passed,
        cast(result_counts.input_tokens as bigint) as input_tokens,
        cast(result_counts.output_tokens as bigint) as output_tokens,
        result_counts.total_cost,
        result_counts.tokens_per_sample,
        sets.drop_date,
        sets.source_file,
        sets.file_sha256,
        sets.prompt_idx,
        sets.provider_id,
        sets.output_format,
        {{ scoring_version('promptfoo') }} as scoring_version
    from sets
    left join result_counts
        on sets.set_id = result_counts.set_id

)

select * from final
