{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per current
-- resume set, the series it belongs to (its file name) and its version.
with

current_sets as (

    select * from {{ ref('int_sets__current') }}
    where kind = 'resume_agent'

),

final as (

    select
        set_id,
        'resume_agent' as agent,
        file_name as series_id,
        cast(drop_date as date) as drop_date,
        file_sha256 as set_version
    from current_sets

)

select * from final
