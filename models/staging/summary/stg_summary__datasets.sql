-- One row per loaded summary dataset version: the EvalVault dataset header
-- (name, version, thresholds, metadata). Threshold values were validated by
-- the loader (numbers in [0, 1]); unknown metric names are kept, unused.
with

raw_headers as (

    select * from {{ ref('raw_summary_datasets') }}

),

guarded as (

    select
        source_file,
        sha256,
        loaded_at,
        case when json_valid(header_json) then header_json::json end as doc
    from raw_headers

),

final as (

    select
        source_file,
        sha256 as file_sha256,
        loaded_at,
        doc ->> '$.name' as dataset_name,
        doc ->> '$.version' as dataset_version,
        case
            when json_type(doc -> '$.thresholds') = 'OBJECT'
                then json(doc -> '$.thresholds')
        end as thresholds_json,
        case
            when
                json_type(doc -> '$.metadata') is not null
                and json_type(doc -> '$.metadata') <> 'NULL'
                then json(doc -> '$.metadata')
        end as metadata_json
    from guarded

)

select * from final
