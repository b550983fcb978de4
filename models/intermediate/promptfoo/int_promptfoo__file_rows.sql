{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded
-- promptfoo output version with rows in raw history: its results, valid
-- and rejected, and for a current version the results in
-- promptfoo_item_scores (one result has a row per scorer there: counted
-- once, by its `overall` row).
with

final as (

    {{ file_row_counts(
        'promptfoo_output', 'stg_promptfoo__results', 'promptfoo_item_scores',
        scored_file='source_file', scored_where="scorer = 'overall'"
    ) }}

)

select * from final
