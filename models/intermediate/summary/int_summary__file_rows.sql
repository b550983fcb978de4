{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded
-- summary file version with rows in raw history: its rows, valid and
-- rejected, and for a current version its rows in the public case mart.
{{ file_row_counts('summary', 'stg_summary__cases', 'summary_case_scores') }}
