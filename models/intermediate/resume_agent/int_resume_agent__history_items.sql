{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per scored resume
-- item with the fields flips, repeats and latency percentiles need; the
-- segment is the item's track, the pass verdict the agent's rule of seed
-- history_pass_rules.
with

items as (

    select * from {{ ref('resume_item_scores') }}

),

pass_rules as (

    select * from {{ ref('history_pass_rules') }}
    where agent = 'resume_agent'

),

final as (

    select
        'resume_agent' as agent,
        items.set_id,
        items.file_sha256,
        items.line_number,
        items.query_id,
        items.round,
        items.round_order,
        'track_' || items.track as segment,
        items.status,
        items.is_duplicate,
        items.accuracy_score,
        items.stability_score,
        items.latency_sec,
        items.latency_score,
        items.query_text,
        items.assistant_message,
        items.error_message,
        items.status_reason as fail_detail,
        {{ passes_item_rule(
            'items.stability_score', 'items.accuracy_score', 'pass_rules'
        ) }} as is_pass
    from items
    inner join pass_rules on true

)

select * from final
