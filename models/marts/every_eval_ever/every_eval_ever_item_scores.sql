{{ config(materialized='set_incremental', kind='every_eval_ever_aggregate') }}
-- One row per instance line (sample, epoch, scorer) of the current version
-- of each Every Eval Ever aggregate: the evaluation result it scores (the
-- reader's link; none for a line it could not link to one result), the
-- question, reference and answer, the score as written and as a number,
-- the file's own correctness verdict, error, latency and tokens. Only the
-- sets to build are read (unbuilt).
with

aggregates as (

    select * from {{ unbuilt(ref('int_every_eval_ever__aggregates_current')) }}

),

instances as (

    select * from {{ unbuilt(
        ref('stg_every_eval_ever__instances'), set_column='source_file'
    ) }}
    where
        reject_reason is null

),

results as (

    select * from {{ unbuilt(ref('int_every_eval_ever__results')) }}

),

numbered as (

    -- an epoch written as a label (this warehouse's export writes its
    -- agents' rounds, `2/1`): numbered in order, part by part
    select
        *,
        case
            when epoch is not null then epoch
            when epoch_label is null then 1
            else
                cast(dense_rank() over (
                    partition by
                        source_file,
                        file_sha256,
                        epoch is null and epoch_label is not null
                    order by
                        try_cast(split_part(epoch_label, '/', 1) as integer),
                        try_cast(split_part(epoch_label, '/', 2) as integer),
                        epoch_label
                ) as integer)
        end as epoch_number
    from instances

),

final as (

    select
        aggregates.set_id,
        aggregates.file_sha256,
        aggregates.drop_date,
        cast(numbered.line_number as bigint) as line_number,
        numbered.sample_id,
        numbered.epoch_number as epoch,
        numbered.epoch_label,
        numbered.scorer,
        results.metric,
        numbered.result_index,
        numbered.evaluation_name,
        numbered.evaluation_result_id,
        numbered.sample_hash,
        numbered.interaction_type,
        numbered.input,
        numbered.target,
        coalesce(numbered.answer, numbered.output) as answer,
        numbered.output as completion,
        cast(numbered.score_json as varchar) as value_raw,
        numbered.score as value,
        numbered.is_correct as is_pass,
        cast(null as varchar) as explanation,
        numbered.error,
        numbered.latency_ms / 1000.0 as latency_sec,
        numbered.num_turns,
        numbered.tool_calls_count,
        numbered.input_tokens,
        numbered.output_tokens,
        numbered.total_tokens,
        -- the format records no cost
        cast(null as double) as total_cost,
        cast(numbered.metadata_json as varchar) as metadata_json,
        {{ scoring_version('every_eval_ever') }} as scoring_version
    from numbered
    inner join aggregates
        on
            numbered.source_file = aggregates.set_id
            and numbered.file_sha256 = aggregates.file_sha256
    left join results
        on
            aggregates.set_id = results.set_id
            and numbered.result_index = results.result_index

)

select * from final
