{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per current Every
-- Eval Ever aggregate, its series (every_eval_ever, benchmark, model: the
-- converters name files by a random UUID, so the series cannot be the file
-- name) and its version (the aggregate's with its instance file).
with

aggregates as (

    select * from {{ ref('int_every_eval_ever__aggregates_current') }}

),

final as (

    select
        set_id,
        'every_eval_ever' as agent,
        series_id,
        drop_date,
        file_sha256 as set_version
    from aggregates

)

select * from final
