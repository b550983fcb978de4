{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per (set, latency class, latency score): how many items got each
-- score 0-5 of their class's rubric, every score present (0 when none).
with

items as (

    select * from {{ unbuilt(ref('recruit_item_scores')) }}

),

latency_classes as (

    select * from {{ ref('recruit_latency_classes') }}

),

latency_rubric as (

    select * from {{ ref('latency_rubric') }}

),

new_sets as (

    select distinct
        set_id,
        file_sha256
    from items

),

grid as (

    select
        new_sets.set_id,
        new_sets.file_sha256,
        latency_classes.latency_class,
        latency_classes.latency_rubric,
        latency_rubric.score as latency_score
    from new_sets
    cross join latency_classes
    inner join latency_rubric
        on latency_classes.latency_rubric = latency_rubric.latency_rubric

),

counts as (

    select
        set_id,
        latency_class,
        latency_score,
        count(*) as n_items,
        count(*) filter (where latency_sec is null) as n_latency_missing,
        min(latency_sec) as min_latency_sec,
        max(latency_sec) as max_latency_sec
    from items
    group by set_id, latency_class, latency_score

),

final as (

    select
        grid.set_id,
        grid.file_sha256,
        grid.latency_class,
        grid.latency_rubric,
        grid.latency_score,
        coalesce(counts.n_items, 0) as n_items,
        coalesce(counts.n_latency_missing, 0) as n_latency_missing,
        counts.min_latency_sec,
        counts.max_latency_sec
    from grid
    left join counts
        on
            grid.set_id = counts.set_id
            and grid.latency_class = counts.latency_class
            and grid.latency_score = counts.latency_score

)

select * from final
