{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded Every
-- Eval Ever aggregate version with instance lines in raw history: its
-- lines, valid and rejected, and for a current version the lines in
-- every_eval_ever_item_scores (a line has a row per result it scores
-- there: counted once).
with

final as (

    {{ file_row_counts(
        'every_eval_ever_aggregate', 'stg_every_eval_ever__instances',
        'every_eval_ever_item_scores',
        scored_count='count(distinct line_number)'
    ) }}

)

select * from final
