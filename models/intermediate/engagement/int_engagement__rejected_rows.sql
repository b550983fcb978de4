{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per line of an
-- actions.jsonl that could not be scored. (An expected.json that cannot be
-- used is rejected whole by the loader: ops.rejected_files.)
with

action_lines as (

    select * from {{ ref('stg_engagement__actions') }}
    where reject_reason is not null

),

final as (

    select
        'engagement_actions' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        coalesce(
            raw_text,
            concat_ws(
                ' | ',
                'action.type=' || coalesce(action_type, ''),
                'action.status=' || coalesce(action_status, ''),
                'persona=' || coalesce(persona, '')
            )
        ) as raw_text,
        loaded_at
    from action_lines

)

select * from final
