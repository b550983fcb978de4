{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per current
-- engagement run. A run has no file name of its own (run folders are named
-- per run): runs scored against the same ground truth (expected.json
-- bytes) form a series, `engagement:<first 12 hex of its sha256>`.
with

runs as (

    select * from {{ ref('int_engagement__runs_current') }}

),

final as (

    select
        set_id,
        'engagement' as agent,
        'engagement:' || coalesce(left(expected_sha256, 12), 'none')
            as series_id,
        cast(drop_date as date) as drop_date,
        run_sha256 as set_version
    from runs

)

select * from final
