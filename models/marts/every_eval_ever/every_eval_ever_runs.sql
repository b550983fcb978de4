{{ config(materialized='set_incremental', kind='every_eval_ever_aggregate') }}
-- One row per evaluation set of an imported tool (an Every Eval Ever
-- aggregate with its instance file): the evaluation, its series
-- (every_eval_ever, benchmark, model), the library that ran it, the
-- source that reported it, its samples and tokens as the instance lines
-- record them. The format records finished evaluations and no run
-- status: status is null and every set is complete.
with

aggregates as (

    select * from {{ unbuilt(ref('int_every_eval_ever__aggregates_current')) }}

),

items as (

    select * from {{ unbuilt(ref('every_eval_ever_item_scores')) }}

),

results as (

    select * from {{ unbuilt(ref('int_every_eval_ever__results')) }}

),

sample_records as (

    -- one per (sample, epoch), however many results its lines score
    select
        set_id,
        sample_id,
        epoch,
        max(error) as error,
        max(input_tokens) as input_tokens,
        max(output_tokens) as output_tokens
    from items
    group by set_id, sample_id, epoch

),

record_counts as (

    select
        set_id,
        count(distinct sample_id) as n_samples,
        max(epoch) as n_epochs,
        count(*) as n_sample_records,
        count(error) as n_errored,
        sum(input_tokens) as input_tokens,
        sum(output_tokens) as output_tokens,
        -- over the records that report their usage
        {{ exact_avg(
            'case when input_tokens is not null or output_tokens is not null'
            ~ ' then coalesce(input_tokens, 0) + coalesce(output_tokens, 0) end'
        ) }} as tokens_per_sample
    from sample_records
    group by set_id

),

line_counts as (

    select
        set_id,
        count(*) as n_instance_lines
    from items
    group by set_id

),

result_counts as (

    select
        set_id,
        count(*) as n_results
    from results
    group by set_id

),

final as (

    select
        aggregates.set_id,
        aggregates.series_id,
        'every_eval_ever' as tool,
        aggregates.schema_version as tool_version,
        -- the format's version is a release number (schema_version)
        cast(null as integer) as format_version,
        aggregates.evaluation_id as run_id,
        aggregates.benchmark as task,
        aggregates.model_id as model,
        cast(null as varchar) as prompt,
        coalesce(aggregates.evaluated_at, aggregates.retrieved_at)
            as created_at,
        cast(null as varchar) as status,
        true as is_complete,
        cast(null as varchar) as run_error,
        aggregates.headline_scorer,
        cast(coalesce(record_counts.n_samples, 0) as bigint) as n_samples,
        cast(coalesce(record_counts.n_epochs, 1) as integer) as n_epochs,
        cast(coalesce(record_counts.n_sample_records, 0) as bigint)
            as n_sample_records,
        cast(coalesce(record_counts.n_errored, 0) as bigint) as n_errored,
        cast(record_counts.input_tokens as bigint) as input_tokens,
        cast(record_counts.output_tokens as bigint) as output_tokens,
        cast(null as double) as total_cost,
        record_counts.tokens_per_sample,
        aggregates.drop_date,
        aggregates.set_id as source_file,
        aggregates.file_sha256,
        {{ scoring_version('every_eval_ever') }} as scoring_version,
        ---------- the file's own fields
        aggregates.schema_version,
        aggregates.evaluation_id,
        aggregates.benchmark,
        aggregates.evaluated_at,
        aggregates.retrieved_at,
        aggregates.source_name,
        aggregates.source_type,
        aggregates.source_organization_name,
        aggregates.evaluator_relationship,
        aggregates.eval_library,
        aggregates.eval_library_version,
        aggregates.model_name,
        aggregates.model_developer,
        aggregates.inference_platform,
        aggregates.instance_file,
        aggregates.instance_file_path,
        aggregates.instance_checksum,
        aggregates.instance_total_rows,
        cast(coalesce(result_counts.n_results, 0) as bigint) as n_results,
        cast(coalesce(line_counts.n_instance_lines, 0) as bigint)
            as n_instance_lines
    from aggregates
    left join record_counts
        on aggregates.set_id = record_counts.set_id
    left join line_counts
        on aggregates.set_id = line_counts.set_id
    left join result_counts
        on aggregates.set_id = result_counts.set_id

)

select * from final
