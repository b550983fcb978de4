{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per current
-- promptfoo set (an output's column: provider x prompt), its series and
-- its version (the output file's).
with

sets as (

    select * from {{ ref('int_promptfoo__output_sets') }}

),

final as (

    select
        set_id,
        'promptfoo' as agent,
        series_id,
        drop_date,
        file_sha256 as set_version
    from sets

)

select * from final
