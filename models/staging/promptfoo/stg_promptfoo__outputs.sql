-- One row per loaded promptfoo output version (all versions; intermediate
-- keeps the current ones): the header's fields typed, each column's
-- metrics kept as JSON (one entry per promptIdx).
with

raw_outputs as (

    select * from {{ ref('raw_promptfoo_outputs') }}

),

parsed as (

    select
        source_file,
        sha256,
        loaded_at,
        case
            when json_valid(header_json) then {{ nfc('header_json') }}::json
        end as output_header
    from raw_outputs

),

final as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        ---------- the output
        'promptfoo' as tool,
        output_header ->> '$.format' as output_format,
        try_cast(output_header ->> '$.version' as integer) as format_version,
        output_header ->> '$.eval_id' as eval_id,
        output_header ->> '$.description' as description,
        output_header ->> '$.tool_version' as tool_version,
        try_cast(output_header ->> '$.created' as timestamptz) as created_at,
        output_header -> '$.columns' as columns_json,
        output_header -> '$.stats' as stats_json
    from parsed

)

select * from final
