{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per current
-- EvalVault run export, its series (tool, dataset, model: an export is
-- named by its run id, so the series cannot be the file name) and its
-- version.
with

runs as (

    select * from {{ ref('int_evalvault__runs_current') }}

),

final as (

    select
        set_id,
        'evalvault' as agent,
        series_id,
        drop_date,
        file_sha256 as set_version
    from runs

)

select * from final
