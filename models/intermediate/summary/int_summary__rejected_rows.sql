{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per test case of a
-- summary dataset that could not be scored, the reason spelled out.
with

cases as (

    select * from {{ ref('stg_summary__cases') }}
    where reject_reason is not null

),

final as (

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
    from cases

)

select * from final
