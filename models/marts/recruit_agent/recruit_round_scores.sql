{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per (set, round): item means of every score (SPEC 4.4, as 3.5),
-- latency overall and per class (SINGLE = basic, MULTI = multi-tool).
with

items as (

    select * from {{ unbuilt(ref('recruit_item_scores')) }}

),

final as (

    select
        set_id,
        file_sha256,
        round,
        round_order,
        count(*) as n_items,
        count(distinct query_id) as n_queries,
        count(*) filter (where latency_class = 'SINGLE') as n_single,
        count(*) filter (where latency_class = 'MULTI') as n_multi,
        {{ exact_avg('intent_score') }} as intent_score,
        {{ exact_avg('accuracy_score') }} as accuracy_score,
        {{ exact_avg('stability_score') }} as stability_score,
        {{ exact_avg('latency_score') }} as latency_score,
        {{ exact_avg(
            "case when latency_class = 'SINGLE' then latency_score end"
        ) }} as latency_single_score,
        {{ exact_avg(
            "case when latency_class = 'MULTI' then latency_score end"
        ) }} as latency_multi_score,
        {{ exact_avg(
            "case when latency_class = 'SINGLE' then latency_sec end"
        ) }} as latency_single_sec,
        {{ exact_avg(
            "case when latency_class = 'MULTI' then latency_sec end"
        ) }} as latency_multi_sec,
        cast(sum(n_checks) as bigint) as n_checks,
        cast(sum(n_checks_passed) as bigint) as n_checks_passed
    from items
    group by set_id, file_sha256, round, round_order

)

select * from final
