{{ config(materialized='incremental', incremental_strategy='append') }}
{%- set new_versions = is_unprocessed_version(
    "select source_file, sha256 from " ~ ref('int_resume_agent__files_counted')
    ~ " where n_rejected_rows > 0",
    'source_file', 'file_sha256'
) %}
-- One row per record of a loaded resume_agent file version that cannot be
-- scored: line, reason and raw text. Parse failures come from the loader,
-- value failures (invalid_track, ...) from staging. Only versions with
-- rejections are read, each once.
with

items as (

    select * from {{ ref('stg_resume_agent__items') }}
    where {{ new_versions }}

),

final as (

    select
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        case reject_reason
            when 'invalid_track'
                then 'invalid_track: Track ' || coalesce(
                    '''' || track_raw || '''', 'missing'
                ) || ' is not a track in seed resume_track_rubrics'
            when 'missing_query_id' then 'missing_query_id: Query ID is blank'
            when 'missing_round' then 'missing_round: 방/반복 is blank'
            else reject_reason
        end as reason_detail,
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
    from items
    where reject_reason is not null

)

select * from final
