{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded
-- EvalVault run export version with rows in raw history: its records
-- (test cases and scores), valid and rejected, and for a current version
-- the records in evalvault_item_scores (a test case is its `overall` row,
-- a score its metric's row: one row each).
with

final as (

    {{ file_row_counts(
        'evalvault_run', 'stg_evalvault__records', 'evalvault_item_scores'
    ) }}

)

select * from final
