{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded
-- recruit_agent file version with rows in raw history: its rows, valid and
-- rejected, and for a current version its rows in the public item mart.
{{ file_row_counts(
    'recruit_agent', 'stg_recruit_agent__items', 'recruit_item_scores'
) }}
