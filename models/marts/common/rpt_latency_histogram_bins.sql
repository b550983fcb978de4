-- One row per bin of each latency rubric's histogram. The bin width is the
-- widest that divides every finite band edge (so no bin straddles two
-- scores) and still gives at least var latency_histogram_min_bins bins up
-- to the last finite edge: 1 s for edges 5/8/10/15/20, 2.5 s for 20..60.
-- Half as many bins again follow the last edge, then one overflow bin
-- holds every latency above (is_overflow). Bins are closed on the right,
-- like the bands: (lower, upper]. Band edges are taken to the millisecond.
with

bands as (

    select * from {{ ref('rpt_latency_bands') }}

),

finite_edges as (

    select
        latency_rubric,
        list(cast(round(upper_bound_sec * 1000) as bigint)) as edges_ms,
        max(cast(round(upper_bound_sec * 1000) as bigint)) as last_edge_ms
    from bands
    where isfinite(upper_bound_sec)
    group by latency_rubric

),

common_widths as (

    select
        latency_rubric,
        last_edge_ms,
        -- noqa: sqlfluff's DuckDB dialect does not parse DuckDB's lambda
        -- syntax (`lambda a, b: ...`, the arrow form is deprecated)
        list_reduce(edges_ms, lambda a, b: gcd(a, b)) as common_ms  -- noqa: PRS
    from finite_edges

),

splits as (

    -- the common width split in as few equal parts as give enough bins
    -- (integer ceiling: exact)
    select
        latency_rubric,
        last_edge_ms,
        common_ms,
        (
            {{ var('latency_histogram_min_bins') }} * common_ms
            + last_edge_ms - 1
        ) // last_edge_ms as n_parts
    from common_widths

),

rubric_bins as (

    select
        latency_rubric,
        cast(common_ms as double) / (n_parts * 1000) as bin_width_sec,
        last_edge_ms * n_parts // common_ms as n_to_last_edge
    from splits

),

sized as (

    select
        latency_rubric,
        bin_width_sec,
        n_to_last_edge + n_to_last_edge // 2 as overflow_bin
    from rubric_bins

),

bins as (

    select
        latency_rubric,
        bin_width_sec,
        overflow_bin,
        unnest(range(0, overflow_bin + 1)) as bin
    from sized

),

final as (

    select
        latency_rubric,
        cast(bin as integer) as bin,
        cast(overflow_bin + 1 as integer) as n_bins,
        bin_width_sec,
        bin_width_sec * (overflow_bin + 1) * bin
        / (overflow_bin + 1) as bin_lower_sec,
        bin_width_sec * (overflow_bin + 1) * (bin + 1)
        / (overflow_bin + 1) as bin_upper_sec,
        bin = overflow_bin as is_overflow
    from bins

)

select * from final
