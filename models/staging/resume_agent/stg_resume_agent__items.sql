-- One row per data record of every loaded resume_agent CSV version.
-- Renames the Korean headers (mapping in _resume_agent__models.yml), types the
-- values, extracts the Raw JSON fields behind a validity guard (one malformed
-- value must not fail the query) and says why a record cannot be scored.
with

raw_rows as (

    select * from {{ ref('raw_resume_agent_rows') }}

),

renamed as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        line_number,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        reject_reason as parse_reject_reason,
        raw_text,
        ---------- ids
        trim("Run ID") as run_id,
        trim("Item ID") as item_id,
        trim("Query ID") as query_id,
        trim("방/반복") as round,
        track as track_raw,
        ---------- text
        "질의" as query_text,
        "기대결과" as expected_result,
        "카테고리" as category,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        {{ nfc('"응답"') }} as response_text,
        "오류" as error_text,
        "LLM 상태" as llm_status,
        "LLM 점수" as llm_score_raw,
        "LLM 코멘트" as llm_comment,
        "Raw JSON" as raw_json,
        extra_columns
    from raw_rows

),

parsed as (

    select
        *,
        {{ parse_track('track_raw') }} as track,
        -- valid JSON that starts with '{' is an object: no second parse
        case
            when {{ is_blank('raw_json') }} then 'blank'
            when
                json_valid(raw_json)
                and starts_with(
                    ltrim(raw_json, chr(32) || chr(9) || chr(10) || chr(13)),
                    '{'
                ) then 'valid'
            else 'invalid'
        end as raw_json_state
    from renamed

),

extracted as (

    -- One parse of the document for every field (json_extract with a list
    -- of paths); the macros below then look at the small extracted values.
    select
        *,
        case
            when raw_json_state = 'valid'
                then json_extract(
                    raw_json,
                    [
                        '$.assistantMessage',
                        '$.dataUIList',
                        '$.responseTimeSec',
                        '$.error'
                    ]
                )
        end as raw_fields
    from parsed

),

final as (

    select
        source_file,
        file_sha256,
        line_number,
        loaded_at,
        drop_date,
        run_id,
        item_id,
        query_id,
        round,
        track_raw,
        track,
        query_text,
        expected_result,
        category,
        response_text,
        error_text,
        llm_status,
        llm_score_raw,
        llm_comment,
        raw_json,
        extra_columns,
        ---------- Raw JSON fields
        raw_json_state,
        raw_json_state = 'valid' as raw_json_valid,
        case
            when raw_json_state = 'valid'
                then {{ nfc("raw_fields[1] ->> '$'") }}
            when raw_json_state = 'blank' then response_text
        end as assistant_message,
        {{ json_array_length_or_zero('raw_fields[2]') }} as n_data_ui,
        {{ json_nonneg_number('raw_fields[3]') }} as response_time_sec,
        {{ json_is_truthy('raw_fields[4]') }} as has_raw_error,
        raw_fields[4] ->> '$' as raw_error_text,
        ---------- record validity
        coalesce(
            parse_reject_reason,
            case
                when
                    track is null
                    or track not in (
                        select tr.track
                        from {{ ref('resume_track_rubrics') }} as tr
                    )
                    then 'invalid_track'
                when nullif(query_id, '') is null then 'missing_query_id'
                when nullif(round, '') is null then 'missing_round'
            end
        ) as reject_reason,
        raw_text
    from extracted

)

select * from final
