{{ config(materialized='view') }}
-- One row per (set, sample, epoch, scorer) of every imported tool
-- (var imported_tools): the shared contract over each tool's
-- <tool>_item_scores mart. A view: readers filter by set.
with

items as (

    {{ imported_tools_union('item_scores', [
        'set_id', 'file_sha256', 'drop_date', 'line_number', 'sample_id',
        'epoch', 'scorer', 'input', 'target', 'answer', 'completion',
        'value_raw', 'value', 'is_pass', 'explanation', 'error',
        'latency_sec', 'input_tokens', 'output_tokens', 'total_cost',
        'scoring_version'
    ]) }}

),

final as (

    select * from items

)

select * from final
