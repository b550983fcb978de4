{{ config(materialized='view') }}
-- One row per evaluation set of every imported tool (var imported_tools):
-- the shared contract over each tool's <tool>_runs mart. A view: the
-- tools' marts hold the rows once.
with

runs as (

    {{ imported_tools_union('runs', [
        'set_id', 'series_id', 'tool', 'tool_version', 'format_version',
        'run_id', 'task', 'model', 'prompt', 'created_at', 'status',
        'is_complete', 'run_error', 'headline_scorer', 'n_samples',
        'n_epochs', 'n_sample_records', 'n_errored', 'input_tokens',
        'output_tokens', 'total_cost', 'tokens_per_sample', 'drop_date',
        'source_file', 'file_sha256', 'scoring_version'
    ]) }}

),

final as (

    select * from runs

)

select * from final
