{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded
-- lm-eval file version with rows in raw history: its records (a results
-- file's tasks, a samples file's lines), valid and rejected (the reader's
-- reasons, and a task or a samples file that pairs with nothing), and for
-- a current version the records scored: a task that is a set (its row in
-- lm_eval_runs), a line whose document has rows in lm_eval_item_scores
-- (one row per metric there: counted once).
with

task_rows as (

    select * from {{ ref('int_lm_eval__task_rows') }}

),

sample_rows as (

    select * from {{ ref('int_lm_eval__sample_rows') }}

),

runs as (

    select * from {{ ref('lm_eval_runs') }}

),

items as (

    select * from {{ ref('lm_eval_item_scores') }}

),

row_counts as (

    select
        'lm_eval_results' as kind,
        source_file,
        file_sha256 as sha256,
        count(*) as n_raw_rows,
        count(*) filter (where reject_reason is null) as n_valid_rows,
        count(*) filter (where reject_reason is not null) as n_rejected_rows
    from task_rows
    group by source_file, file_sha256

    union all

    select
        'lm_eval_samples' as kind,
        source_file,
        file_sha256 as sha256,
        count(*) as n_raw_rows,
        count(*) filter (where reject_reason is null) as n_valid_rows,
        count(*) filter (where reject_reason is not null) as n_rejected_rows
    from sample_rows
    group by source_file, file_sha256

),

scored_counts as (

    select
        source_file,
        results_sha256 as sha256,
        count(*) as n_scored_rows
    from runs
    group by source_file, results_sha256

    union all

    select
        samples_file as source_file,
        samples_sha256 as sha256,
        count(distinct line_number) as n_scored_rows
    from items
    group by samples_file, samples_sha256

),

final as (

    select
        row_counts.kind,
        row_counts.source_file,
        row_counts.sha256,
        row_counts.n_raw_rows,
        row_counts.n_valid_rows,
        row_counts.n_rejected_rows,
        scored_counts.n_scored_rows
    from row_counts
    left join scored_counts
        on
            row_counts.source_file = scored_counts.source_file
            and row_counts.sha256 = scored_counts.sha256

)

select * from final
