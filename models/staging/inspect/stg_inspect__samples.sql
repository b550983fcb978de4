-- One row per sample record (id, epoch) of every loaded Inspect AI log
-- version: the fields typed, the scores kept as JSON (intermediate unnests
-- them), and why a record cannot be scored (reject_reason, from the reader).
with

raw_samples as (

    select * from {{ ref('raw_inspect_samples') }}

),

records as (

    select
        *,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        case
            when json_valid(record_json) then {{ nfc('record_json') }}::json
        end as rec
    from raw_samples

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
        rec ->> '$.member' as member,
        ---------- the sample
        rec ->> '$.id' as sample_id,
        try_cast(rec ->> '$.epoch' as integer) as epoch,
        rec ->> '$.input' as input,
        rec ->> '$.target' as target,
        rec ->> '$.answer' as answer,
        rec ->> '$.error' as error,
        {{ json_nonneg_number("rec -> '$.total_time'") }} as total_time_sec,
        {{ json_nonneg_number("rec -> '$.working_time'") }}
            as working_time_sec,
        rec -> '$.model_usage' as model_usage_json,
        rec -> '$.scores' as scores_json
    from records

)

select * from final
