-- One row per instance line of every loaded Every Eval Ever aggregate
-- version: the fields typed, the result it scores (result_index: its
-- place in evaluation_results; null when the line names none the reader
-- could link), and why a line cannot be scored (reject_reason, from the
-- reader).
with

raw_instances as (

    select * from {{ ref('raw_every_eval_ever_instances') }}

),

records as (

    select
        *,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        case
            when json_valid(record_json) then {{ nfc('record_json') }}::json
        end as rec
    from raw_instances

),

final as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        line_number,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        reject_reason,
        raw_text,
        ---------- the sample and the result it scores
        rec ->> '$.sample_id' as sample_id,
        rec ->> '$.epoch_label' as epoch_label,
        try_cast(rec ->> '$.epoch' as integer) as epoch,
        rec ->> '$.scorer' as scorer,
        try_cast(rec ->> '$.result_index' as integer) as result_index,
        rec ->> '$.evaluation_name' as evaluation_name,
        rec ->> '$.evaluation_result_id' as evaluation_result_id,
        rec ->> '$.sample_hash' as sample_hash,
        rec ->> '$.interaction_type' as interaction_type,
        ---------- what was asked and answered
        rec ->> '$.input' as input,
        rec ->> '$.target' as target,
        rec ->> '$.output' as output,
        rec ->> '$.answer' as answer,
        rec ->> '$.error' as error,
        ---------- the score
        rec -> '$.score' as score_json,
        {{ json_finite_number("rec -> '$.score'") }} as score,
        try_cast(rec ->> '$.is_correct' as boolean) as is_correct,
        try_cast(rec ->> '$.num_turns' as integer) as num_turns,
        try_cast(rec ->> '$.tool_calls_count' as integer) as tool_calls_count,
        ---------- time and tokens
        {{ json_nonneg_number("rec -> '$.latency_ms'") }} as latency_ms,
        try_cast(rec ->> '$.input_tokens' as bigint) as input_tokens,
        try_cast(rec ->> '$.output_tokens' as bigint) as output_tokens,
        try_cast(rec ->> '$.total_tokens' as bigint) as total_tokens,
        rec -> '$.metadata' as metadata_json
    from records

)

select * from final
