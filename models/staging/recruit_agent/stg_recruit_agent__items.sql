-- One row per line of every loaded recruit_agent JSONL version.
-- Extracts the item's fields from record_json and the fields of the `raw`
-- response (itself JSON inside a string) behind validity guards: one
-- malformed value must not fail the query. Says why a record cannot be
-- scored (reject_reason).
with

raw_rows as (

    select * from {{ ref('raw_recruit_agent_rows') }}

),

records as (

    select
        *,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        case
            when json_valid(record_json) then {{ nfc('record_json') }}::json
        end as rec
    from raw_rows

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
        record_json,
        ---------- ids
        trim(rec ->> '$.runId') as run_id,
        trim(rec ->> '$.itemId') as item_id,
        trim(rec ->> '$.queryId') as query_id,
        trim(rec ->> '$.round') as round_raw,
        ---------- text
        rec ->> '$.query' as query_text,
        rec ->> '$.expectedResult' as expected_result,
        rec ->> '$.category' as category,
        ---------- labels given by the harness
        upper(trim(rec ->> '$.latencyClass')) as latency_class_raw,
        upper(trim(rec ->> '$.intentVerdict')) as intent_verdict_raw,
        upper(trim(rec ->> '$.intentLabel')) as intent_label_raw,
        case
            when json_type(rec -> '$.accuracyChecks') = 'ARRAY'
                then json(rec -> '$.accuracyChecks')::varchar
        end as accuracy_checks_json,
        ---------- error and latency of the item
        {{ json_is_truthy("rec -> '$.error'") }} as has_item_error,
        case
            when {{ json_is_truthy("rec -> '$.error'") }}
                then rec ->> '$.error'
        end as item_error_text,
        {{ json_nonneg_number("rec -> '$.latency_ms'") }} as latency_ms,
        ---------- the agent's raw response: a JSON string (an object is
        -- accepted as it is; any other JSON type cannot be parsed)
        case json_type(rec -> '$.raw')
            when 'VARCHAR' then rec ->> '$.raw'
            when 'NULL' then null
            else json(rec -> '$.raw')::varchar
        end as raw_json
    from records

),

parsed as (

    select
        *,
        case
            when {{ is_blank('raw_json') }} then 'blank'
            when
                json_valid(raw_json)
                and json_type(raw_json::json) = 'OBJECT' then 'valid'
            else 'invalid'
        end as raw_json_state
    from renamed

),

extracted as (

    select
        *,
        case when raw_json_state = 'valid' then raw_json::json end as raw_doc
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
        round_raw,
        query_text,
        expected_result,
        category,
        latency_class_raw,
        intent_verdict_raw,
        intent_label_raw,
        accuracy_checks_json,
        has_item_error,
        item_error_text,
        latency_ms,
        raw_json,
        ---------- raw response fields
        raw_json_state,
        raw_json_state = 'valid' as raw_json_valid,
        raw_doc ->> '$.assistantMessage' as assistant_message,
        case
            when json_type(raw_doc -> '$.dataUIList') in ('ARRAY', 'OBJECT')
                then json(raw_doc -> '$.dataUIList')::varchar
        end as data_ui_list_json,
        {{ json_array_length_or_zero("raw_doc -> '$.dataUIList'") }}
            as n_data_ui,
        {{ json_nonneg_number("raw_doc -> '$.responseTimeSec'") }}
            as response_time_sec,
        {{ json_is_truthy("raw_doc -> '$.error'") }} as has_raw_error,
        case
            when {{ json_is_truthy("raw_doc -> '$.error'") }}
                then raw_doc ->> '$.error'
        end as raw_error_text,
        ---------- record validity
        coalesce(
            parse_reject_reason,
            case
                when nullif(item_id, '') is null then 'missing_item_id'
                when nullif(query_id, '') is null then 'missing_query_id'
            end
        ) as reject_reason,
        raw_text,
        record_json
    from extracted

)

select * from final
