-- One row per task of every loaded lm-evaluation-harness results file
-- version: the task's figures as lm-eval reported them (kept as JSON, one
-- entry per scorer "<metric>,<filter>": intermediate unnests them), what its
-- config says of each metric, its sample counts, and why it cannot be used
-- (reject_reason, from the reader).
with

raw_tasks as (

    select * from {{ ref('raw_lm_eval_tasks') }}

),

records as (

    select
        *,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        case
            when json_valid(record_json) then {{ nfc('record_json') }}::json
        end as rec
    from raw_tasks

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
            '_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d+)?)\.json$',
            1
        ) as run_datetime,
        rec ->> '$.task' as task,
        ---------- the task
        rec ->> '$.alias' as task_alias,
        rec -> '$.scorers' as scorers_json,
        rec -> '$.aggregations' as aggregations_json,
        rec -> '$.higher_is_better' as higher_is_better_json,
        try_cast(rec ->> '$.sample_len' as bigint) as sample_len,
        try_cast(rec ->> '$.n_samples_original' as bigint)
            as n_docs_original,
        try_cast(rec ->> '$.n_samples_effective' as bigint)
            as n_docs_effective,
        try_cast(rec ->> '$.n_shot' as integer) as n_shot,
        rec ->> '$.task_version' as task_version,
        rec ->> '$.task_hash' as task_hash,
        rec ->> '$.output_type' as output_type,
        try_cast(rec ->> '$.repeats' as integer) as repeats,
        rec ->> '$.dataset_path' as dataset_path
    from records

)

select * from final
