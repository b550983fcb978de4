{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per record of an
-- lm-eval file that could not be scored: a task of a results file (its
-- figures, or its samples file missing), a line of a samples file (as
-- read, or its results file missing), the reason with where it is.
with

task_rows as (

    select * from {{ ref('int_lm_eval__task_rows') }}
    where reject_reason is not null

),

sample_rows as (

    select * from {{ ref('int_lm_eval__sample_rows') }}
    where reject_reason is not null

),

final as (

    select
        'lm_eval_results' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        raw_text,
        loaded_at
    from task_rows

    union all

    select
        'lm_eval_samples' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        raw_text,
        loaded_at
    from sample_rows

)

select * from final
