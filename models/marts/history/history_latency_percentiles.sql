{{ config(
    materialized='set_incremental',
    sets_model='int_history__sets',
    version_column='set_version',
    built_version_column='file_sha256',
) }}
-- Latency percentiles of the resume and recruit agents beside the rubric
-- means: one row per (set, scope, round, segment, item filter). scope is
-- set / round / segment / round_segment (segment: track_1..3 for the resume
-- agent, SINGLE / MULTI for the recruit agent; 'all' where not split).
-- item_filter: all items, non_error (status <> error) and error, so the
-- latency of errored items is reported apart. Percentiles interpolate
-- linearly between order statistics (quantile_cont, numpy's default) over
-- the items with a latency; mean_latency_score is the rubric mean over all
-- items of the group (a missing latency scores 0).
-- The percentiles are read from (latency value, count) pairs, not from one
-- row per item: quantile_cont is a holistic aggregate that holds every
-- value of a group in memory and does not spill (eight groups per item ran
-- out of the 1 GB budget at 10M items), while the counts are ordinary
-- aggregates that spill, and latencies (two decimals) repeat: 7,401
-- distinct values in a million items. Order statistic k (0-based) of a
-- group is the first value whose running count exceeds k.
with

items as (

    select * from {{ unbuilt_item_sets(ref('int_history__items')) }}

),

sets as (

    select
        set_id,
        series_id,
        drop_date
    from {{ ref('int_history__sets') }}

),

item_filters as (

    select f.item_filter
    from (values ('all'), ('non_error'), ('error')) as f (item_filter)

),

filtered as (

    select
        items.*,
        item_filters.item_filter
    from items
    inner join item_filters
        on
            item_filters.item_filter = 'all'
            or (item_filters.item_filter = 'error') = (items.status = 'error')

),

grouped as (

    select
        agent,
        set_id,
        file_sha256,
        item_filter,
        {{ latency_scope() }} as scope,
        coalesce(round, 'all') as round,
        min(round_order) as round_order,
        coalesce(segment, 'all') as segment,
        count(*) as n_items,
        count(latency_sec) as n_with_latency,
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

cell_values as (

    -- each latency value with its count, per finest cell
    select
        agent,
        set_id,
        file_sha256,
        status = 'error' as is_error,
        round,
        segment,
        latency_sec,
        count(*) as n_values
    from items
    where latency_sec is not null
    group by
        agent, set_id, file_sha256, status = 'error', round, segment,
        latency_sec

),

value_counts as (

    select
        cell_values.agent,
        cell_values.set_id,
        cell_values.file_sha256,
        item_filters.item_filter,
        {{ latency_scope() }} as scope,
        coalesce(cell_values.round, 'all') as round,
        coalesce(cell_values.segment, 'all') as segment,
        cell_values.latency_sec,
        sum(cell_values.n_values) as n_values
    from cell_values
    inner join item_filters
        on
            item_filters.item_filter = 'all'
            or (item_filters.item_filter = 'error') = cell_values.is_error
    group by grouping sets (
        (
            cell_values.agent, cell_values.set_id, cell_values.file_sha256,
            item_filters.item_filter, cell_values.latency_sec
        ),
        (
            cell_values.agent, cell_values.set_id, cell_values.file_sha256,
            item_filters.item_filter, cell_values.round, cell_values.latency_sec
        ),
        (
            cell_values.agent, cell_values.set_id, cell_values.file_sha256,
            item_filters.item_filter, cell_values.segment,
            cell_values.latency_sec
        ),
        (
            cell_values.agent, cell_values.set_id, cell_values.file_sha256,
            item_filters.item_filter, cell_values.round, cell_values.segment,
            cell_values.latency_sec
        )
    )

),

running as (

    select
        *,
        sum(n_values) over (
            partition by
                agent, set_id, file_sha256, item_filter, scope, round, segment
            order by latency_sec
            rows between unbounded preceding and current row
        ) as n_upto,
        sum(n_values) over (
            partition by
                agent, set_id, file_sha256, item_filter, scope, round, segment
        ) as n_total
    from value_counts

),

quantiles as (

    select
        agent,
        set_id,
        file_sha256,
        item_filter,
        scope,
        round,
        segment,
        {{ quantile_from_counts(0.5) }} as p50_sec,
        {{ quantile_from_counts(0.9) }} as p90_sec,
        {{ quantile_from_counts(0.95) }} as p95_sec,
        {{ quantile_from_counts(0.99) }} as p99_sec
    from running
    group by agent, set_id, file_sha256, item_filter, scope, round, segment

),

final as (

    select
        grouped.agent,
        grouped.set_id,
        grouped.file_sha256,
        sets.series_id,
        sets.drop_date,
        grouped.scope,
        grouped.round,
        case
            when grouped.round = 'all' then 0 else grouped.round_order
        end as round_order,
        grouped.segment,
        grouped.item_filter,
        cast(grouped.n_items as bigint) as n_items,
        cast(grouped.n_with_latency as bigint) as n_with_latency,
        quantiles.p50_sec,
        quantiles.p90_sec,
        quantiles.p95_sec,
        quantiles.p99_sec,
        grouped.max_sec,
        grouped.mean_sec,
        grouped.mean_latency_score
    from grouped
    inner join sets
        on grouped.set_id = sets.set_id
    left join quantiles
        on
            grouped.agent = quantiles.agent
            and grouped.set_id = quantiles.set_id
            and grouped.file_sha256 = quantiles.file_sha256
            and grouped.item_filter = quantiles.item_filter
            and grouped.scope = quantiles.scope
            and grouped.round = quantiles.round
            and grouped.segment = quantiles.segment

)

select * from final
