-- One row per observation of a drop file, with its place in the file's history.
-- The current version of a path is its latest observation whose rows are in
-- raw history (status loaded or restored); every other such observation is
-- superseded. A rejected or repeated observation never replaces a good one.
with

observations as (

    select * from {{ ref('raw_drop_files') }}

),

versioned as (

    select
        *,
        status in ('loaded', 'restored') as has_rows,
        max(case when status in ('loaded', 'restored') then observation_seq end)
            over (partition by source_file) as current_seq
    from observations

),

final as (

    select
        ---------- ids
        source_file,
        sha256,
        observation_seq,
        load_id,
        ---------- file facts
        kind,
        drop_date,
        file_name,
        size_bytes,
        modified_at,
        encoding,
        n_data_records,
        n_lines,
        loader,
        loader_note,
        ---------- outcome
        status,
        reject_reason,
        duplicate_of,
        has_rows,
        coalesce(observation_seq = current_seq, false) as is_current,
        coalesce(has_rows and observation_seq < current_seq, false)
            as is_superseded,
        loaded_at
    from versioned

)

select * from final
