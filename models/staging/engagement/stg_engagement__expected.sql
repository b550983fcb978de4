-- One row per loaded engagement expected.json version (all versions;
-- intermediate keeps the current ones). The loader already checked the
-- document against expected-schema.json (a non-conforming file is rejected
-- whole), so every row here is usable; values are still read behind JSON
-- type guards.
with

raw_rows as (

    select * from {{ ref('raw_engagement_expected_rows') }}

),

renamed as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        line_number,
        loaded_at,
        reject_reason,
        ---------- ids from the path <date>/engagement/<run_id>/expected.json
        split_part(source_file, '/', 1) as drop_date,
        split_part(source_file, '/', 3) as run_id,
        regexp_extract(source_file, '^[^/]+/engagement/[^/]+') as run_path,
        ---------- the document
        case when json_valid(record_json) then record_json::json end as doc
    from raw_rows

),

final as (

    select
        source_file,
        file_sha256,
        line_number,
        loaded_at,
        drop_date,
        run_path,
        run_id,
        doc -> '$.expected' as expected_json,
        case
            when json_type((doc -> '$.perPersona')) = 'OBJECT'
                then doc -> '$.perPersona'
        end as per_persona_json,
        case
            when json_type((doc -> '$.weights')) = 'OBJECT'
                then doc -> '$.weights'
        end as weights_json,
        coalesce(
            reject_reason,
            case
                when
                    coalesce(json_type((doc -> '$.expected')), 'NULL')
                    <> 'OBJECT'
                    then 'invalid_expected: no expected object'
            end
        ) as reject_reason
    from renamed

)

select * from final
