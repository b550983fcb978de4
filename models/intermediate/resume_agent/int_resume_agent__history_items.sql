{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per scored resume
-- item with the fields flips, repeats and latency percentiles need; the
-- segment is the item's track.
with

items as (

    select * from {{ ref('resume_item_scores') }}

),

final as (

    select
        'resume_agent' as agent,
        set_id,
        file_sha256,
        line_number,
        query_id,
        round,
        round_order,
        'track_' || track as segment,
        status,
        is_duplicate,
        accuracy_score,
        stability_score,
        latency_sec,
        latency_score,
        query_text,
        assistant_message,
        error_message,
        status_reason as fail_detail
    from items

)

select * from final
