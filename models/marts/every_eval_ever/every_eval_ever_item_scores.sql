{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets() }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
-- One row per instance line (sample, epoch, scorer) of the current version
-- of each Every Eval Ever aggregate: the evaluation result it scores (the
-- reader's link; none for a line it could not link to one result), the
-- question, reference and answer, the score as written and as a number,
-- the file's own correctness verdict, error, latency and tokens. Only the
-- sets to build are read (is_unbuilt_set).
with

aggregates as (

    select * from {{ ref('int_every_eval_ever__aggregates_current') }}
    where {{ is_unbuilt_set(kind='every_eval_ever_aggregate') }}

),

instances as (

    select * from {{ ref('stg_every_eval_ever__instances') }}
    where
        reject_reason is null
        and {{ is_unbuilt_set(
            'source_file', 'file_sha256', kind='every_eval_ever_aggregate'
        ) }}

),

results as (

    select * from {{ ref('int_every_eval_ever__results') }}
    where {{ is_unbuilt_set(kind='every_eval_ever_aggregate') }}

),

final as (

    select
        aggregates.set_id,
        aggregates.file_sha256,
        aggregates.drop_date,
        cast(instances.line_number as bigint) as line_number,
        instances.sample_id,
        instances.epoch,
        instances.scorer,
        results.metric,
        instances.result_index,
        instances.evaluation_name,
        instances.evaluation_result_id,
        instances.sample_hash,
        instances.interaction_type,
        instances.input,
        instances.target,
        coalesce(instances.answer, instances.output) as answer,
        instances.output as completion,
        cast(instances.score_json as varchar) as value_raw,
        instances.score as value,
        instances.is_correct as is_pass,
        cast(null as varchar) as explanation,
        instances.error,
        instances.latency_ms / 1000.0 as latency_sec,
        instances.num_turns,
        instances.tool_calls_count,
        instances.input_tokens,
        instances.output_tokens,
        instances.total_tokens,
        -- the format records no cost
        cast(null as double) as total_cost,
        cast(instances.metadata_json as varchar) as metadata_json,
        {{ scoring_version('every_eval_ever') }} as scoring_version
    from instances
    inner join aggregates
        on
            instances.source_file = aggregates.set_id
            and instances.file_sha256 = aggregates.file_sha256
    left join results
        on
            aggregates.set_id = results.set_id
            and instances.result_index = results.result_index

)

select * from final
