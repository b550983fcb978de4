{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, scope, round, latency rubric, latency score 0-5): how many
-- items got that latency score. scope 'round' counts one round; scope 'set'
-- (round = 'all') counts the whole set. Scores with no items appear with 0.
with

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

bands as (

    select * from {{ ref('latency_rubric') }}

),

set_items as (

    select *
    from items

),

scopes as (

    select distinct
        set_id,
        file_sha256,
        'round' as scope,
        round,
        round_order
    from set_items
    union all
    select distinct
        set_id,
        file_sha256,
        'set' as scope,
        'all' as round,
        0 as round_order
    from set_items

),

rubric_scores as (

    -- every score a rubric can give, plus 0 (missing latency)
    select distinct
        latency_rubric,
        score as latency_score
    from bands
    union
    select distinct
        latency_rubric,
        0 as latency_score
    from bands

),

grid as (

    select
        scopes.*,
        rubric_scores.latency_rubric,
        rubric_scores.latency_score
    from scopes
    cross join rubric_scores

),

counts as (

    select
        set_id,
        round,
        latency_rubric,
        latency_score,
        count(*) as n_items
    from set_items
    group by set_id, round, latency_rubric, latency_score
    union all
    select
        set_id,
        'all' as round,
        latency_rubric,
        latency_score,
        count(*) as n_items
    from set_items
    group by set_id, latency_rubric, latency_score

),

final as (

    select
        grid.set_id,
        grid.file_sha256,
        grid.scope,
        grid.round,
        grid.round_order,
        grid.latency_rubric,
        cast(grid.latency_score as integer) as latency_score,
        coalesce(counts.n_items, 0) as n_items
    from grid
    left join counts
        on
            grid.set_id = counts.set_id
            and grid.round = counts.round
            and grid.latency_rubric = counts.latency_rubric
            and grid.latency_score = counts.latency_score

)

select * from final
