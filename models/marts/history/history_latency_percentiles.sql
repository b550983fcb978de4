{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets() }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
-- Latency percentiles of the resume and recruit agents beside the rubric
-- means: one row per (set, scope, round, segment, item filter). scope is
-- set / round / segment / round_segment (segment: track_1..3 for the resume
-- agent, SINGLE / MULTI for the recruit agent; 'all' where not split).
-- item_filter: all items, non_error (status <> error) and error, so the
-- latency of errored items is reported apart. Percentiles interpolate
-- linearly between order statistics (quantile_cont, numpy's default) over
-- the items with a latency; mean_latency_score is the rubric mean over all
-- items of the group (a missing latency scores 0).
with

items as (

    select * from {{ ref('int_history__items') }}
    where
        {{ is_unbuilt_set(kind='resume_agent') }}
        or {{ is_unbuilt_set(kind='recruit_agent') }}

),

filtered as (

    select
        items.*,
        filters.item_filter
    from items
    inner join (
        values ('all'), ('non_error'), ('error')
    ) as filters (item_filter)
        on
            filters.item_filter = 'all'
            or (filters.item_filter = 'error') = (items.status = 'error')

),

grouped as (

    select
        agent,
        set_id,
        file_sha256,
        item_filter,
        case
            when grouping(round) = 0 and grouping(segment) = 0
                then 'round_segment'
            when grouping(round) = 0 then 'round'
            when grouping(segment) = 0 then 'segment'
            else 'set'
        end as scope,
        coalesce(round, 'all') as round,
        min(round_order) as round_order,
        coalesce(segment, 'all') as segment,
        count(*) as n_items,
        count(latency_sec) as n_with_latency,
        -- one holistic state for the four quantiles (four calls held every
        -- value of a group four times: 3M items did not fit 1 GB)
        quantile_cont(latency_sec, [0.5, 0.9, 0.95, 0.99]) as quantiles_sec,
        max(latency_sec) as max_sec,
        {{ exact_avg('latency_sec') }} as mean_sec,
        {{ exact_avg('latency_score') }} as mean_latency_score
    from filtered
    group by grouping sets (
        (agent, set_id, file_sha256, item_filter),
        (agent, set_id, file_sha256, item_filter, round),
        (agent, set_id, file_sha256, item_filter, segment),
        (agent, set_id, file_sha256, item_filter, round, segment)
    )

),

final as (

    select
        agent,
        set_id,
        file_sha256,
        scope,
        round,
        case when round = 'all' then 0 else round_order end as round_order,
        segment,
        item_filter,
        cast(n_items as bigint) as n_items,
        cast(n_with_latency as bigint) as n_with_latency,
        quantiles_sec[1] as p50_sec,
        quantiles_sec[2] as p90_sec,
        quantiles_sec[3] as p95_sec,
        quantiles_sec[4] as p99_sec,
        max_sec,
        mean_sec,
        mean_latency_score
    from grouped

)

select * from final
