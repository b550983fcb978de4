{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per resume_agent
-- record that could not be scored, kept once per file version
-- (int_resume_agent__rows_rejected): no rescan of raw history.
with

rejected as (

    select * from {{ ref('int_resume_agent__rows_rejected') }}

),

final as (

    select
        'resume_agent' as kind,
        source_file,
        sha256,
        line_number,
        reason,
        reason_detail,
        raw_text,
        loaded_at
    from rejected

)

select * from final
