{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, round, track): item means per track, with mean latency
-- seconds (non-null only) and mean latency score (missing counts as 0).
with

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

final as (

    select
        set_id,
        file_sha256,
        round,
        round_order,
        track,
        any_value(latency_rubric) as latency_rubric,
        count(*) as n_items,
        count(latency_sec) as n_items_with_latency,
        count(*) filter (where status = 'ok') as n_ok,
        count(*) filter (where status = 'partial') as n_partial,
        count(*) filter (where status = 'error') as n_error,
        count(*) filter (where status = 'empty') as n_empty,
        {{ exact_avg('intent_score') }} as intent_score,
        {{ exact_avg('accuracy_score') }} as accuracy_score,
        {{ exact_avg('stability_score') }} as stability_score,
        {{ exact_avg('latency_sec') }} as latency_sec,
        {{ exact_avg('latency_score') }} as latency_score
    from items
    group by set_id, file_sha256, round, round_order, track

)

select * from final
