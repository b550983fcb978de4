-- One row per current OpenAI Evals record file version (one evaluation
-- set): its spec's fields, its series (tool, eval, completion functions:
-- evals names its files by run id, so the series cannot be the file name),
-- its final report and whether the run finished (a file without a final
-- report is a run that crashed or is still running).
with

current_sets as (

    select * from {{ ref('int_sets__current') }}
    where kind = 'openai_evals_record'

),

runs as (

    select * from {{ ref('stg_openai_evals__runs') }}

),

final as (

    select
        current_sets.set_id,
        current_sets.file_sha256,
        cast(current_sets.drop_date as date) as drop_date,
        runs.tool,
        runs.run_id,
        runs.eval_name,
        runs.base_eval,
        runs.eval_split,
        runs.completion_fns,
        runs.created_by,
        runs.created_at,
        runs.eval_class,
        runs.eval_args_json,
        runs.seed,
        runs.max_samples,
        runs.command,
        runs.final_report_json,
        runs.final_report_line,
        runs.final_report_json is not null as is_complete,
        case
            when runs.final_report_json is not null then 'success'
            else 'started'
        end as status,
        runs.tool
        || ':' || coalesce(runs.eval_name, '?')
        || ':' || coalesce(runs.completion_fns, '?') as series_id
    from current_sets
    inner join runs
        on
            current_sets.set_id = runs.source_file
            and current_sets.file_sha256 = runs.file_sha256

)

select * from final
