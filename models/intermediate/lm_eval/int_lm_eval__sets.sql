{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per current
-- lm-eval set (a results file's task), its series (lm_eval, task, model)
-- and its version (both files': results and samples).
with

sets as (

    select * from {{ ref('int_lm_eval__task_sets') }}

),

final as (

    select
        set_id,
        'lm_eval' as agent,
        series_id,
        drop_date,
        set_version
    from sets

)

select * from final
