{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, failure pattern): the error and empty items grouped by
-- status, reason and error message, ranked by how many items share the
-- pattern: the report's "실패 질의 Top pattern" table (its first five).
with

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

patterns as (

    select
        set_id,
        file_sha256,
        status,
        status_reason,
        coalesce(error_message, '') as error_message,
        count(*) as n_items,
        array_to_string(list(distinct track order by track), ', ') as tracks
    from items
    where status in ('error', 'empty')
    group by
        set_id,
        file_sha256,
        status,
        status_reason,
        coalesce(error_message, '')

),

final as (

    select
        set_id,
        file_sha256,
        status,
        status_reason,
        error_message,
        n_items,
        tracks,
        row_number() over (
            partition by set_id
            order by
                n_items desc,
                status asc,
                status_reason asc,
                error_message asc
        ) as pattern_rank
    from patterns

)

select * from final
