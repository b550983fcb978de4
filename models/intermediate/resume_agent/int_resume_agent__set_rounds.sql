-- One row per (set, round) of the current version of each resume set: the
-- round's order within the set. Rounds sort numerically part by part ('2/1'
-- before '10/1', SPEC 3.1). Ranked over the few distinct rounds, not over
-- every row; narrow, and grouped and partitioned by (set_id, file_sha256) so
-- a filter on the sets to build reaches the raw scan.
with

items as (

    select * from {{ ref('stg_resume_agent__items') }}

),

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

rounds as (

    select distinct
        current_sets.set_id,
        items.file_sha256,
        items.round
    from items
    inner join current_sets
        on
            items.source_file = current_sets.set_id
            and items.file_sha256 = current_sets.file_sha256
    where items.reject_reason is null

),

final as (

    select
        set_id,
        file_sha256,
        round,
        dense_rank() over (
            partition by set_id, file_sha256
            order by {{ round_sort_key('round') }}, round
        ) as round_order
    from rounds

)

select * from final
