{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, query, round pair a < b) where the query ran in both
-- rounds. A duplicated (query, round) contributes its first line only.
with

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

first_runs as (

    select
        set_id,
        file_sha256,
        query_id,
        round,
        round_order,
        track,
        status,
        is_pass
    from items
    where not is_duplicate

),

paired as (

    select
        run_a.set_id,
        run_a.file_sha256,
        run_a.query_id,
        run_a.round as round_a,
        run_b.round as round_b,
        run_a.round_order as round_a_order,
        run_b.round_order as round_b_order,
        run_a.track,
        run_a.track <> run_b.track as has_track_change,
        run_a.status as status_a,
        run_b.status as status_b,
        case
            when run_a.is_pass and run_b.is_pass then 'both_pass'
            when not run_a.is_pass and not run_b.is_pass then 'both_fail'
            else 'mismatch'
        end as outcome
    from first_runs as run_a
    inner join first_runs as run_b
        on
            run_a.set_id = run_b.set_id
            and run_a.query_id = run_b.query_id
            and run_a.round_order < run_b.round_order

)

select * from paired
