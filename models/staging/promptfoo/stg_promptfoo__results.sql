-- One row per result of every loaded promptfoo output version: the fields
-- typed, the set it belongs to (the output's column: its provider and
-- prompt, set_id `<file>#<promptIdx>`), the assertions kept as JSON
-- (intermediate unnests them), and why a result cannot be scored
-- (reject_reason, from the reader).
with

raw_results as (

    select * from {{ ref('raw_promptfoo_results') }}

),

records as (

    select
        *,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        case
            when json_valid(record_json) then {{ nfc('record_json') }}::json
        end as rec
    from raw_results

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
        ---------- the set: the output's column
        try_cast(rec ->> '$.column' as integer) as prompt_idx,
        source_file || '#' || (rec ->> '$.column') as set_id,
        rec ->> '$.provider' as provider,
        rec ->> '$.provider_id' as provider_id,
        rec ->> '$.prompt_label' as prompt_label,
        ---------- the result
        try_cast(rec ->> '$.row' as integer) as test_idx,
        rec ->> '$.test_key' as test_key,
        rec ->> '$.description' as description,
        rec ->> '$.input' as input,
        cast(rec -> '$.vars' as varchar) as vars_json,
        try_cast(rec ->> '$.success' as boolean) as success,
        try_cast(rec ->> '$.score' as double) as score,
        try_cast(rec ->> '$.failure_reason' as integer) as failure_reason,
        rec ->> '$.error' as error,
        rec ->> '$.output' as output,
        {{ json_nonneg_number("rec -> '$.latency_ms'") }} as latency_ms,
        {{ json_nonneg_number("rec -> '$.cost'") }} as cost,
        try_cast(rec ->> '$.tokens.prompt' as bigint) as prompt_tokens,
        try_cast(rec ->> '$.tokens.completion' as bigint) as completion_tokens,
        try_cast(rec ->> '$.grader_tokens.prompt' as bigint)
            as grader_prompt_tokens,
        try_cast(rec ->> '$.grader_tokens.completion' as bigint)
            as grader_completion_tokens,
        rec -> '$.components' as components_json
    from records

)

select * from final
