{{ config(
    materialized='set_incremental',
    sets_model='int_engagement__runs_current',
    version_column='run_sha256',
) }}
-- One row per usable line of the current actions.jsonl versions of every
-- engagement run (rejected lines are in ops.rejected_rows): its persona and
-- whether it counts (action.type = act and action.status = ok).
with

lines as (

    select * from {{ unbuilt(ref('int_engagement__action_lines')) }}

),

final as (

    select
        set_id,
        run_sha256,
        cast(drop_date as date) as drop_date,
        run_id,
        agent_id,
        source_file,
        file_sha256,
        line_number,
        persona,
        line_persona is not null as is_persona_from_line,
        action_type,
        action_status,
        line_outcome,
        is_counted,
        is_counted and is_liked as is_liked,
        is_counted and is_commented as is_commented,
        loaded_at
    from lines
    where
        reject_reason is null

)

select * from final
