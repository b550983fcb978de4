-- One row per observation of a drop file: what the loader did with it
-- (loaded, repeat, restored, rejected, ignored, removed) and whether it is the
-- current, a superseded or a withdrawn version of its path.
with

file_versions as (

    select * from {{ ref('stg_drops__file_versions') }}

),

final as (

    select
        observation_seq,
        source_file,
        sha256,
        kind,
        try_cast(drop_date as date) as drop_date,
        cast(drop_date as varchar) as drop_folder,
        file_name,
        size_bytes,
        encoding,
        n_data_records,
        n_lines,
        loader,
        loader_note,
        status,
        reject_reason,
        duplicate_of,
        is_current,
        is_superseded,
        is_withdrawn,
        withdrawal_reason,
        withdrawn_by,
        withdrawn_at,
        modified_at,
        loaded_at,
        load_id
    from file_versions

)

select * from final
