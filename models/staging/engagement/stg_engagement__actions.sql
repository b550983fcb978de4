-- One row per line of every loaded engagement actions.jsonl version (all
-- versions; intermediate keeps the current ones). Extracts the action and
-- its result behind a JSON validity guard (one bad value must not fail the
-- query), names the persona, classifies the line (counted = act + ok) and
-- says why a line cannot be used (reject_reason).
with

raw_rows as (

    select * from {{ ref('raw_engagement_actions_rows') }}

),

renamed as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        line_number,
        loaded_at,
        reject_reason as parse_reject_reason,
        raw_text,
        ---------- ids from the path <date>/engagement/<run_id>/<agent_id>/
        split_part(source_file, '/', 1) as drop_date,
        split_part(source_file, '/', 3) as run_id,
        split_part(source_file, '/', 4) as agent_id,
        regexp_extract(source_file, '^[^/]+/engagement/[^/]+') as run_path,
        ---------- the line
        case when json_valid(record_json) then record_json::json end as doc
    from raw_rows

),

extracted as (

    select
        *,
        doc ->> '$.action.type' as action_type,
        doc ->> '$.action.status' as action_status,
        doc -> '$.result' as result_doc,
        coalesce(
            nullif(trim({{ nfc("doc ->> '$.personaId'") }}), ''),
            nullif(trim({{ nfc("doc ->> '$.persona'") }}), '')
        ) as line_persona
    from renamed

),

classified as (

    select
        *,
        case
            when parse_reject_reason is not null or doc is null
                then 'rejected'
            when coalesce(action_type, '') <> 'act' then 'not_act'
            when coalesce(action_status, '') <> 'ok' then 'not_ok'
            else 'counted'
        end as line_outcome,
        coalesce(json_type(result_doc), 'NULL') as result_type,
        coalesce(json_type((result_doc -> '$.liked')), 'NULL') as liked_type,
        coalesce(json_type((result_doc -> '$.commented')), 'NULL')
            as commented_type
    from extracted

),

validated as (

    select
        *,
        case
            when parse_reject_reason is not null then parse_reject_reason
            when doc is null then 'invalid_json: not a JSON object'
            when line_outcome <> 'counted' then null
            when result_type <> 'OBJECT'
                then 'invalid_result: act/ok line without a result object'
            when liked_type not in ('BOOLEAN', 'NULL')
                then concat(
                    'invalid_result: result.liked is not true/false (',
                    result_doc ->> '$.liked',
                    ')'
                )
            when commented_type not in ('BOOLEAN', 'NULL')
                then concat(
                    'invalid_result: result.commented is not true/false (',
                    result_doc ->> '$.commented',
                    ')'
                )
        end as reject_reason
    from classified

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
        agent_id,
        line_persona,
        coalesce(line_persona, agent_id) as persona,
        action_type,
        action_status,
        case
            when reject_reason is not null then 'rejected'
            else line_outcome
        end as line_outcome,
        reject_reason is null and line_outcome = 'counted' as is_counted,
        -- a missing or null flag means "did not": loggers omit false flags
        coalesce(
            liked_type = 'BOOLEAN' and (result_doc ->> '$.liked') = 'true',
            false
        ) as is_liked,
        coalesce(
            commented_type = 'BOOLEAN'
            and (result_doc ->> '$.commented') = 'true',
            false
        ) as is_commented,
        reject_reason,
        raw_text
    from validated

)

select * from final
