-- One row per (set, query, round) of the current version of each resume set:
-- the first line that ran the query in that round (a later line is a
-- duplicate, SPEC 3.4). Narrow: no Raw JSON is read. Grouped by (set_id,
-- file_sha256), so a filter on the sets to build reaches the raw scan.
with

items as (

    select * from {{ ref('stg_resume_agent__items') }}

),

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

current_items as (

    select
        current_sets.set_id,
        items.file_sha256,
        items.query_id,
        items.round,
        items.line_number
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
        query_id,
        round,
        min(line_number) as first_line_number,
        count(*) as n_lines
    from current_items
    group by set_id, file_sha256, query_id, round

)

select * from final
