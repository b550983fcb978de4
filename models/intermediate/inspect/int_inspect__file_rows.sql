{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded Inspect
-- AI log version with rows in raw history: its sample records, valid and
-- rejected, and for a current version the sample records in
-- inspect_item_scores (one record has a row per scorer there: counted once).
with

final as (

    {{ file_row_counts(
        'inspect_log', 'stg_inspect__samples', 'inspect_item_scores',
        scored_count='count(distinct line_number)'
    ) }}

)

select * from final
