-- One row per current EvalVault run export version (one evaluation set):
-- the run's fields and its series (tool, dataset, model: an export is
-- named by its run id, so the series cannot be the file name).
with

current_sets as (

    select * from {{ ref('int_sets__current') }}
    where kind = 'evalvault_run'

),

runs as (

    select * from {{ ref('stg_evalvault__runs') }}

),

final as (

    select
        current_sets.set_id,
        current_sets.file_sha256,
        cast(current_sets.drop_date as date) as drop_date,
        runs.tool,
        runs.export_format,
        runs.run_id,
        runs.dataset_name,
        runs.dataset_version,
        runs.model_name,
        runs.started_at,
        runs.finished_at,
        runs.finished_at is not null as is_complete,
        runs.metrics_evaluated_json,
        runs.thresholds_json,
        runs.reported_pass_rate,
        runs.reported_total_test_cases,
        runs.reported_passed_test_cases,
        runs.reported_total_tokens,
        runs.reported_total_cost,
        runs.metrics_summary_json,
        runs.tool
        || ':' || coalesce(runs.dataset_name, '?')
        || ':' || coalesce(runs.model_name, '?') as series_id
    from current_sets
    inner join runs
        on
            current_sets.set_id = runs.source_file
            and current_sets.file_sha256 = runs.file_sha256

)

select * from final
