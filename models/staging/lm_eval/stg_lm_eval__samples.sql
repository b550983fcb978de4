-- One row per line of every loaded lm-evaluation-harness samples file
-- version (one document under one filter): the fields typed, where the
-- file pairs (its folder, and the task and <datetime> of its name
-- samples_<task>_<datetime>.jsonl), each metric's value kept as JSON (one
-- entry per metric: intermediate unnests them), and why a line cannot be
-- scored (reject_reason, from the reader).
with

raw_samples as (

    select * from {{ ref('raw_lm_eval_samples') }}

),

records as (

    select
        *,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        case
            when json_valid(record_json) then {{ nfc('record_json') }}::json
        end as rec
    from raw_samples

),

final as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        line_number,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        reject_reason,
        raw_text,
        ---------- where it pairs: folder, <datetime>, task
        regexp_extract(source_file, '^(.*)/[^/]+$', 1) as folder,
        regexp_extract(
            source_file,
            '/samples_(.+)_'
            || '(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d+)?)\.jsonl$',
            2
        ) as run_datetime,
        regexp_extract(
            source_file,
            '/samples_(.+)_'
            || '(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d+)?)\.jsonl$',
            1
        ) as task,
        ---------- the document under one filter
        try_cast(rec ->> '$.doc_id' as bigint) as doc_id,
        rec ->> '$.filter' as filter_name,
        rec -> '$.metrics' as metrics_json,
        rec ->> '$.target' as target,
        rec ->> '$.input' as input,
        rec -> '$.continuations' as continuations_json,
        rec -> '$.resps' as resps_json,
        rec -> '$.filtered_resps' as filtered_resps_json,
        cast(rec -> '$.doc' as varchar) as doc_json,
        rec ->> '$.doc_hash' as doc_hash,
        rec ->> '$.prompt_hash' as prompt_hash,
        rec ->> '$.target_hash' as target_hash
    from records

)

select * from final
