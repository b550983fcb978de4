{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, round, track): the items, and those slower than the
-- start of their rubric's last band, i.e. the latencies that score 0 (60 s
-- on Track 3's multi rubric): the report's checklist line "Track3 60초
-- 초과" (source 001), with the threshold taken from the rubric seed.
with

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

latency_rubric as (

    select * from {{ ref('latency_rubric') }}

),

bands as (

    {{ latency_bands('latency_rubric') }}

),

last_bands as (

    select
        latency_rubric,
        lower_bound_sec as slow_threshold_sec
    from bands
    qualify
        row_number() over (
            partition by latency_rubric order by band_order desc
        ) = 1

),

final as (

    select
        items.set_id,
        items.file_sha256,
        items.round,
        items.round_order,
        items.track,
        items.latency_rubric,
        last_bands.slow_threshold_sec,
        count(*) as n_items,
        count(*) filter (
            where items.latency_sec > last_bands.slow_threshold_sec
        ) as n_over_threshold
    from items
    inner join last_bands
        on items.latency_rubric = last_bands.latency_rubric
    group by
        items.set_id,
        items.file_sha256,
        items.round,
        items.round_order,
        items.track,
        items.latency_rubric,
        last_bands.slow_threshold_sec

)

select * from final
