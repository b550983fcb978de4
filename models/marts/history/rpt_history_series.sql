-- One row per series (sets of one agent compared across drop dates): its
-- agent, how many sets it has and the drop dates of its first and newest
-- set. The viewer's series list and the head of a series page.
with

sets as (

    select * from {{ ref('int_history__sets') }}

),

final as (

    select
        series_id,
        any_value(agent) as agent,
        count(*) as n_sets,
        min(drop_date) as first_drop_date,
        max(drop_date) as newest_drop_date
    from sets
    group by series_id

)

select * from final
