-- One row per event line of every loaded OpenAI Evals record file version:
-- the event's fields typed, its data kept as JSON (intermediate reads the
-- scores and the sampling), and why an event cannot be used
-- (reject_reason, from the reader).
with

raw_events as (

    select * from {{ ref('raw_openai_evals_events') }}

),

records as (

    select
        *,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        case
            when json_valid(record_json) then {{ nfc('record_json') }}::json
        end as rec
    from raw_events

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
        ---------- the event
        try_cast(rec ->> '$.event_id' as bigint) as event_id,
        rec ->> '$.sample_id' as sample_id,
        rec ->> '$.type' as event_type,
        try_cast(rec ->> '$.created_at' as timestamptz) as created_at,
        rec -> '$.data' as data_json
    from records

)

select * from final
