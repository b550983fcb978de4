{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded file
-- version of either engagement kind with rows in raw history. The usable
-- lines of a current actions.jsonl are its lines in the line mart; a
-- current expected.json is scored once, in its run's row.
{{ file_row_counts(
    'engagement_actions', 'stg_engagement__actions', 'engagement_actions',
    scored_file='source_file'
) }}
union all
{{ file_row_counts(
    'engagement_expected', 'stg_engagement__expected', 'engagement_run_scores',
    scored_file='expected_file', scored_sha='expected_sha256',
    scored_where='expected_file is not null'
) }}
