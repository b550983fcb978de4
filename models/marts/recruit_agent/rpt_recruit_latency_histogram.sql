{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per (set, latency class, latency bin) with items: the latency
-- histogram of each class (MULTI first) in its rubric's bins
-- (rpt_latency_histogram_bins), as the report's chart draws it; bin -1
-- counts the items without a latency.
with

items as (

    select * from {{ unbuilt(ref('recruit_item_scores')) }}

),

latency_classes as (

    select * from {{ ref('recruit_latency_classes') }}

),

bins as (

    select * from {{ ref('rpt_latency_histogram_bins') }}

),

classes as (

    select
        latency_class,
        metric_name,
        row_number() over (order by latency_class desc) as class_order
    from latency_classes

),

panels as (

    select
        items.set_id,
        items.file_sha256,
        classes.class_order as panel_order,
        classes.metric_name || ' (' || classes.latency_class || ')'
            as panel_title,
        items.latency_rubric,
        items.latency_sec
    from items
    inner join classes
        on items.latency_class = classes.latency_class

),

final as (

    {{ latency_histogram('panels', 'bins') }}

)

select * from final
