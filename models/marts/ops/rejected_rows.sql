-- One row per data record that could not be scored: file, line, reason and
-- the raw text. Parse failures come from the loader, value failures (e.g.
-- invalid_track) from staging. is_current: the record belongs to the current
-- version of its file.
with

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

resume_rows as (

    select * from {{ ref('stg_resume_agent__items') }}

),

resume_rejects as (

    select
        'resume_agent' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        coalesce(
            raw_text,
            concat_ws(
                ' | ',
                'Track=' || coalesce(track_raw, ''),
                'Query ID=' || coalesce(query_id, ''),
                '방/반복=' || coalesce(round, ''),
                'Item ID=' || coalesce(item_id, '')
            )
        ) as raw_text,
        loaded_at
    from resume_rows
    where reject_reason is not null

),

all_rejects as (

    select * from resume_rejects

),

final as (

    select
        all_rejects.kind,
        all_rejects.source_file,
        all_rejects.sha256,
        all_rejects.line_number,
        all_rejects.reason,
        all_rejects.reason_detail,
        all_rejects.raw_text,
        current_sets.set_id is not null as is_current,
        all_rejects.loaded_at
    from all_rejects
    left join current_sets
        on
            all_rejects.source_file = current_sets.set_id
            and all_rejects.sha256 = current_sets.file_sha256

)

select * from final
