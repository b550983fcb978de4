{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per current
-- OpenAI Evals record file (one run), its series (tool, eval, completion
-- functions: evals names its files by run id, so the series cannot be the
-- file name) and its version.
with

runs as (

    select * from {{ ref('int_openai_evals__runs_current') }}

),

final as (

    select
        set_id,
        'openai_evals' as agent,
        series_id,
        drop_date,
        file_sha256 as set_version
    from runs

)

select * from final
