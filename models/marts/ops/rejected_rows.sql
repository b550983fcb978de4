-- One row per data record that could not be scored: file, line, reason and
-- the raw text. Parse failures come from the loader, value failures (e.g.
-- invalid_track) from staging. is_current: the record belongs to the current
-- version of its file. The resume branch reads rejections kept once per file
-- version (int_resume_agent__rows_rejected): no rescan of raw history.
with

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

summary_rows as (

    select * from {{ ref('stg_summary__cases') }}

),

recruit_rows as (

    select * from {{ ref('stg_recruit_agent__items') }}

),

engagement_lines as (

    select * from {{ ref('stg_engagement__actions') }}

),

resume_rejects as (

    select
        'resume_agent' as kind,
        source_file,
        sha256,
        line_number,
        reason,
        reason_detail,
        raw_text,
        loaded_at
    from {{ ref('int_resume_agent__rows_rejected') }}

),

summary_rejects as (

    select
        'summary' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        'test_cases[' || line_number || ']'
        || coalesce(' (id ''' || case_id || ''')', '') || ': '
        || case reject_reason
            when 'missing_id' then 'missing_id: id is blank'
            when 'duplicate_case_id'
                then 'duplicate_case_id: an earlier case has the same id'
            when 'invalid_answer'
                then 'invalid_answer: answer is not text (null, object or list)'
            when 'invalid_contexts'
                then 'invalid_contexts: contexts is not a list'
            when 'invalid_metadata'
                then 'invalid_metadata: metadata is not an object'
            when 'invalid_summary_tags'
                then
                    'invalid_summary_tags: metadata.summary_tags is not a '
                    || 'list or a string'
            else reject_reason
        end as reason_detail,
        coalesce(raw_text, record_json) as raw_text,
        loaded_at
    from summary_rows
    where reject_reason is not null

),

recruit_rejects as (

    select
        'recruit_agent' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        case reject_reason
            when 'missing_item_id'
                then 'missing_item_id: itemId is null or blank'
            when 'missing_query_id'
                then 'missing_query_id: queryId is null or blank'
            else reject_reason
        end as reason_detail,
        coalesce(raw_text, record_json) as raw_text,
        loaded_at
    from recruit_rows
    where reject_reason is not null

),

engagement_rejects as (

    select
        'engagement_actions' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        coalesce(
            raw_text,
            concat_ws(
                ' | ',
                'action.type=' || coalesce(action_type, ''),
                'action.status=' || coalesce(action_status, ''),
                'persona=' || coalesce(persona, '')
            )
        ) as raw_text,
        loaded_at
    from engagement_lines
    where reject_reason is not null

),

all_rejects as (

    select * from resume_rejects
    union all
    select * from summary_rejects
    union all
    select * from recruit_rejects
    union all
    select * from engagement_rejects

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
