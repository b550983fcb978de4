{{ config(materialized='view') }}
-- One row per (set, scorer, metric) of every imported tool
-- (var imported_tools): the shared contract over each tool's
-- <tool>_set_scores mart, the warehouse's figure beside the tool's own.
with

set_scores as (

    {{ imported_tools_union('set_scores', [
        'set_id', 'scorer', 'metric', 'value', 'n_samples', 'std_error',
        'ci_low', 'ci_high', 'scale_min', 'scale_max', 'is_proportion',
        'tool_reported_value', 'agrees_with_tool',
        'drop_date', 'series_id', 'file_sha256', 'scoring_version'
    ]) }}

),

final as (

    select * from set_scores

)

select * from final
