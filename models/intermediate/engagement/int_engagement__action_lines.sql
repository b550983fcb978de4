-- One row per line of the current actions.jsonl versions of every run,
-- rejected lines included (reject_reason), tagged with the run's set_id and
-- fingerprint.
with

runs as (

    select * from {{ ref('int_engagement__runs_current') }}

),

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

lines as (

    select * from {{ ref('stg_engagement__actions') }}

),

final as (

    select
        runs.set_id,
        runs.run_sha256,
        lines.source_file,
        lines.file_sha256,
        lines.line_number,
        lines.loaded_at,
        lines.drop_date,
        lines.run_id,
        lines.agent_id,
        lines.line_persona,
        lines.persona,
        lines.action_type,
        lines.action_status,
        lines.line_outcome,
        lines.is_counted,
        lines.is_liked,
        lines.is_commented,
        lines.reject_reason,
        lines.raw_text
    from lines
    inner join current_sets
        on
            lines.source_file = current_sets.set_id
            and lines.file_sha256 = current_sets.file_sha256
    inner join runs
        on lines.run_path = runs.set_id

)

select * from final
