-- One row per loaded Every Eval Ever aggregate version (all versions;
-- intermediate keeps the current ones): the header's fields typed, the
-- evaluation results kept as JSON (intermediate unnests them). Timestamps
-- are Unix seconds as the format writes them (a text; an ISO time is read
-- too).
with

raw_aggregates as (

    select * from {{ ref('raw_every_eval_ever_aggregates') }}

),

parsed as (

    select
        source_file,
        sha256,
        loaded_at,
        -- matched in NFC (macro nfc); raw history keeps what was delivered
        case
            when json_valid(header_json) then {{ nfc('header_json') }}::json
        end as agg
    from raw_aggregates

),

final as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        ---------- the evaluation
        agg ->> '$.schema_version' as schema_version,
        agg ->> '$.evaluation_id' as evaluation_id,
        agg ->> '$.benchmark' as benchmark,
        coalesce(
            {{ epoch_timestamp(
                "try_cast(agg ->> '$.evaluation_timestamp' as double)"
            ) }},
            try_cast(agg ->> '$.evaluation_timestamp' as timestamptz)
        ) as evaluated_at,
        coalesce(
            {{ epoch_timestamp(
                "try_cast(agg ->> '$.retrieved_timestamp' as double)"
            ) }},
            try_cast(agg ->> '$.retrieved_timestamp' as timestamptz)
        ) as retrieved_at,
        ---------- the source
        agg ->> '$.source_name' as source_name,
        agg ->> '$.source_type' as source_type,
        agg ->> '$.source_organization_name' as source_organization_name,
        agg ->> '$.evaluator_relationship' as evaluator_relationship,
        agg ->> '$.eval_library' as eval_library,
        agg ->> '$.eval_library_version' as eval_library_version,
        ---------- the model
        agg ->> '$.model_id' as model_id,
        agg ->> '$.model_name' as model_name,
        agg ->> '$.model_developer' as model_developer,
        agg ->> '$.inference_platform' as inference_platform,
        ---------- the results and the instance file
        agg -> '$.results' as results_json,
        agg ->> '$.instances.file' as instance_file,
        agg ->> '$.instances.file_path' as instance_file_path,
        agg ->> '$.instances.checksum' as instance_checksum,
        try_cast(agg ->> '$.instances.total_rows' as bigint)
            as instance_total_rows
    from parsed

)

select * from final
