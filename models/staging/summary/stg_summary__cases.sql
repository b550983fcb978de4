-- One row per test case of every loaded summary dataset version (all
-- versions; intermediate keeps the current ones). Extracts the EvalVault
-- TestCase fields from record_json behind a validity guard and says why a
-- case cannot be scored (reject_reason).
with

raw_rows as (

    select * from {{ ref('raw_summary_cases') }}

),

guarded as (

    select
        source_file,
        sha256,
        line_number,
        loaded_at,
        reject_reason as parse_reject_reason,
        raw_text,
        record_json,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        case
            when json_valid(record_json) then {{ nfc('record_json') }}::json
        end as doc
    from raw_rows

),

renamed as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        line_number,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        parse_reject_reason,
        raw_text,
        record_json,
        ---------- ids
        trim(doc ->> '$.id') as case_id,
        ---------- text
        doc ->> '$.question' as question,
        json_type(doc -> '$.answer') as answer_type,
        doc ->> '$.answer' as answer,
        doc ->> '$.ground_truth' as ground_truth,
        json_type(doc -> '$.contexts') as contexts_type,
        doc -> '$.contexts' as contexts_doc,
        ---------- metadata
        json_type(doc -> '$.metadata') as metadata_type,
        doc -> '$.metadata' as metadata_doc,
        doc ->> '$.metadata.summary_intent' as summary_intent,
        json_type(doc -> '$.metadata.summary_tags') as summary_tags_type,
        doc -> '$.metadata.summary_tags' as summary_tags_doc
    from guarded

),

typed as (

    select
        *,
        case
            when contexts_type = 'ARRAY'
                then list_transform(
                    json_extract_string(contexts_doc, '$[*]'),
                    lambda c: coalesce(c, '')
                )
        end as contexts,
        -- EvalVault accepts a single tag given as a string.
        case
            when summary_tags_type = 'ARRAY'
                then json_extract_string(summary_tags_doc, '$[*]')
            when summary_tags_type = 'VARCHAR'
                then [summary_tags_doc ->> '$']
            else []::varchar[]
        end as summary_tags_raw,
        row_number() over (
            partition by source_file, file_sha256, case_id
            order by line_number
        ) as id_occurrence
    from renamed

),

final as (

    select
        source_file,
        file_sha256,
        line_number,
        loaded_at,
        drop_date,
        case_id,
        question,
        answer,
        ground_truth,
        contexts,
        coalesce(len(contexts), 0) as n_contexts,
        summary_intent,
        -- trimmed, lower-cased, blank and repeated tags dropped (SPEC 6)
        list_sort(list_distinct(list_filter(
            list_transform(summary_tags_raw, lambda t: lower(trim(t))),
            lambda t: coalesce(t, '') <> ''
        ))) as summary_tags,
        record_json,
        ---------- record validity
        coalesce(
            parse_reject_reason,
            case
                when record_json is null or not json_valid(record_json)
                    then 'invalid_json'
                when coalesce(case_id, '') = '' then 'missing_id'
                when id_occurrence > 1 then 'duplicate_case_id'
                when
                    answer_type is null
                    or answer_type in ('NULL', 'OBJECT', 'ARRAY')
                    then 'invalid_answer'
                when contexts_type is distinct from 'ARRAY'
                    then 'invalid_contexts'
                when metadata_type not in ('OBJECT', 'NULL')
                    then 'invalid_metadata'
                when summary_tags_type not in ('ARRAY', 'VARCHAR', 'NULL')
                    then 'invalid_summary_tags'
            end
        ) as reject_reason,
        contexts_type,
        summary_tags_type,
        raw_text
    from typed

)

select * from final
