{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, round): item means of every score (SPEC 3.5).
-- stability_score equals the share of ok/partial rows x 5.
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
        count(*) as n_items,
        count(distinct query_id) as n_queries,
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
    group by set_id, file_sha256, round, round_order

)

select * from final
