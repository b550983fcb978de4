{{ config(materialized='ephemeral') }}
-- One row per (current results file, task) and per current samples file:
-- how the two kinds of file of an lm-eval run pair. lm-eval writes, in one
-- folder, results_<datetime>.json and one samples_<task>_<datetime>.jsonl
-- per task of it, with the same <datetime>; a results file's task and a
-- samples file pair when folder, datetime and task agree. Decided here,
-- over the current versions of both, not when a file is read: a file is
-- read once, when its bytes are new, and a samples file may come a night
-- after its results file. A task with no samples file, or a samples file
-- with no task, is rejected in int_lm_eval__task_rows / __sample_rows.
with

current_files as (

    select * from {{ ref('int_sets__current') }}
    where kind in ('lm_eval_results', 'lm_eval_samples')

),

tasks as (

    select * from {{ ref('stg_lm_eval__tasks') }}

),

current_tasks as (

    select
        tasks.source_file as results_file,
        tasks.file_sha256 as results_sha256,
        tasks.folder,
        tasks.run_datetime,
        tasks.task,
        tasks.line_number as task_line_number,
        tasks.reject_reason as task_reject_reason
    from tasks
    inner join current_files
        on
            tasks.source_file = current_files.set_id
            and tasks.file_sha256 = current_files.file_sha256
            and current_files.kind = 'lm_eval_results'

),

current_samples as (

    select
        current_files.set_id as samples_file,
        current_files.file_sha256 as samples_sha256,
        -- a samples file of no valid line has no row in staging: its name
        -- says where it pairs all the same
        regexp_extract(current_files.set_id, '^(.*)/[^/]+$', 1) as folder,
        regexp_extract(
            current_files.set_id,
            '/samples_(.+)_'
            || '(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d+)?)\.jsonl$',
            2
        ) as run_datetime,
        regexp_extract(
            current_files.set_id,
            '/samples_(.+)_'
            || '(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d+)?)\.jsonl$',
            1
        ) as task
    from current_files
    where current_files.kind = 'lm_eval_samples'

),

current_runs as (

    -- the results files of each (folder, datetime), whatever tasks they list
    select
        folder,
        run_datetime,
        min(results_file) as results_file
    from current_tasks
    group by folder, run_datetime

),

final as (

    select
        coalesce(current_tasks.folder, current_samples.folder) as folder,
        coalesce(current_tasks.run_datetime, current_samples.run_datetime)
            as run_datetime,
        coalesce(current_tasks.task, current_samples.task) as task,
        current_tasks.results_file,
        current_tasks.results_sha256,
        current_tasks.task_line_number,
        current_tasks.task_reject_reason,
        current_samples.samples_file,
        current_samples.samples_sha256,
        current_runs.results_file as run_results_file,
        current_tasks.results_file is not null
        and current_tasks.task_reject_reason is null
        and current_samples.samples_file is not null as is_paired
    from current_tasks
    full outer join current_samples
        on
            current_tasks.folder = current_samples.folder
            and current_tasks.run_datetime = current_samples.run_datetime
            and current_tasks.task = current_samples.task
    left join current_runs
        on
            coalesce(current_tasks.folder, current_samples.folder)
            = current_runs.folder
            and coalesce(
                current_tasks.run_datetime, current_samples.run_datetime
            ) = current_runs.run_datetime

)

select * from final
