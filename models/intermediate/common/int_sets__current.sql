-- One row per evaluation set: the current version of each drop file whose
-- rows are in raw history. set_id is the file's path under drops_dir.
with

file_versions as (

    select * from {{ ref('stg_drops__file_versions') }}

),

final as (

    select
        source_file as set_id,
        kind,
        sha256 as file_sha256,
        drop_date,
        file_name,
        encoding,
        n_data_records,
        loaded_at
    from file_versions
    where is_current

)

select * from final
