{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): no scored item that a pass
-- rule applies to (the history's flips, repeats and percentiles are of
-- items): no row.
{{ no_history_items('engagement') }}
