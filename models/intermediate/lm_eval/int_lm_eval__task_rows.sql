{{ config(materialized='ephemeral') }}
-- One row per task record of every loaded lm-eval results file version,
-- with why it cannot be scored: the reader's reason, or, for a current
-- version, that its samples file is not there (lm-eval --log_samples
-- writes samples_<task>_<datetime>.jsonl beside the results file): the
-- task is then no set (not half of one), and the rejection names the file
-- it waits for. A samples file delivered later pairs it, and the
-- rejection goes.
with

tasks as (

    select * from {{ ref('stg_lm_eval__tasks') }}

),

pairs as (

    select * from {{ ref('int_lm_eval__pairs') }}
    where results_file is not null

),

final as (

    select
        tasks.source_file,
        tasks.file_sha256,
        tasks.line_number,
        tasks.loaded_at,
        tasks.task,
        coalesce(
            tasks.reject_reason,
            case
                when pairs.results_file is not null and not pairs.is_paired
                    then
                        'missing_samples_file: results['''
                        || tasks.task || ''']: no samples_'
                        || tasks.task || '_' || tasks.run_datetime
                        || '.jsonl beside it in ' || tasks.folder
                        || ' (lm-eval --log_samples writes one per task;'
                        || ' the task is a set when it is delivered)'
            end
        ) as reject_reason,
        coalesce(
            tasks.raw_text,
            case
                when pairs.results_file is not null and not pairs.is_paired
                    then tasks.task
            end
        ) as raw_text
    from tasks
    left join pairs
        on
            tasks.source_file = pairs.results_file
            and tasks.file_sha256 = pairs.results_sha256
            and tasks.line_number = pairs.task_line_number

)

select * from final
