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

-- every member in one json_extract: the record is parsed once, not once
-- per field (`rec ->> path` parses it again each time); each member is a
-- small JSON value, read again as text below
members as (

    select
        *,
        json_extract(rec, [
            '$.column',
            '$.provider',
            '$.provider_id',
            '$.prompt_label',
            '$.row',
            '$.test_key',
            '$.description',
            '$.input',
            '$.vars',
            '$.success',
            '$.score',
            '$.failure_reason',
            '$.error',
            '$.output',
            '$.latency_ms',
            '$.cost',
            '$.tokens.prompt',
            '$.tokens.completion',
            '$.grader_tokens.prompt',
            '$.grader_tokens.completion',
            '$.components'
        ]) as m
    from records

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
        try_cast(m[1] ->> '$' as integer) as prompt_idx,
        source_file || '#' || (m[1] ->> '$') as set_id,
        m[2] ->> '$' as provider,
        m[3] ->> '$' as provider_id,
        m[4] ->> '$' as prompt_label,
        ---------- the result
        try_cast(m[5] ->> '$' as integer) as test_idx,
        m[6] ->> '$' as test_key,
        m[7] ->> '$' as description,
        m[8] ->> '$' as input,
        cast(m[9] as varchar) as vars_json,
        try_cast(m[10] ->> '$' as boolean) as success,
        try_cast(m[11] ->> '$' as double) as score,
        try_cast(m[12] ->> '$' as integer) as failure_reason,
        m[13] ->> '$' as error,
        m[14] ->> '$' as output,
        {{ json_nonneg_number('m[15]') }} as latency_ms,
        {{ json_nonneg_number('m[16]') }} as cost,
        try_cast(m[17] ->> '$' as bigint) as prompt_tokens,
        try_cast(m[18] ->> '$' as bigint) as completion_tokens,
        try_cast(m[19] ->> '$' as bigint) as grader_prompt_tokens,
        try_cast(m[20] ->> '$' as bigint) as grader_completion_tokens,
        m[21] as components_json
    from members

)

select * from final
