{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per current
-- Inspect AI log, its series (tool, task, model: Inspect names its files by
-- time and id, so the series cannot be the file name) and its version.
with

logs as (

    select * from {{ ref('int_inspect__logs_current') }}

),

final as (

    select
        set_id,
        'inspect' as agent,
        series_id,
        drop_date,
        file_sha256 as set_version
    from logs

)

select * from final
