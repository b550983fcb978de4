{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded OpenAI
-- Evals record file version with rows in raw history: its event lines,
-- valid and rejected, and for a current version the events in
-- openai_evals_events (every usable event has a row there, whether it
-- scores or not: a sampling event is read into the items it precedes).
with

final as (

    {{ file_row_counts(
        'openai_evals_record', 'stg_openai_evals__events',
        'openai_evals_events'
    ) }}

)

select * from final
