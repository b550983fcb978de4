-- One row per bin of each score scale's histogram: `item` (0 to score_max,
-- the rubric scores of the resume and recruit agents) and `summary` (0 to
-- 1, the summary metrics), var('score_histogram_bins') equal bins each.
-- The score histogram marts count scores into these bins (macro
-- score_histogram); the charts draw their edges from here.
with

scales as (

    select
        'item' as scale,
        cast({{ score_scale_max('item') }} as double) as scale_max
    union all
    select
        'unit' as scale,
        cast({{ score_scale_max('unit') }} as double) as scale_max

),

bins as (

    select
        scales.scale,
        scales.scale_max,
        cast(bin_numbers.bin as integer) as bin
    from scales
    cross join
        range(0, {{ var('score_histogram_bins') }}) as bin_numbers (bin)

),

final as (

    select
        scale,
        bin,
        cast({{ var('score_histogram_bins') }} as integer) as n_bins,
        scale_max * bin / {{ var('score_histogram_bins') }} as bin_lower,
        scale_max * (bin + 1) / {{ var('score_histogram_bins') }} as bin_upper
    from bins

)

select * from final
