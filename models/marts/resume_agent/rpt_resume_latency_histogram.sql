{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, track, latency bin) with items: the latency histogram
-- of each track in its rubric's bins (rpt_latency_histogram_bins), as the
-- report's chart draws it; bin -1 counts the items without a latency.
with

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

tracks as (

    select * from {{ ref('resume_track_rubrics') }}

),

bins as (

    select * from {{ ref('rpt_latency_histogram_bins') }}

),

panels as (

    select
        items.set_id,
        items.file_sha256,
        tracks.track as panel_order,
        tracks.track_label || ' (' || tracks.latency_rubric || ')'
            as panel_title,
        items.latency_rubric,
        items.latency_sec
    from items
    inner join tracks
        on items.track = tracks.track

),

final as (

    {{ latency_histogram('panels', 'bins') }}

)

select * from final
