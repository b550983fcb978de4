-- One row per score band of each latency rubric, as the charts draw them:
-- the bands the item models score with (macro latency_bands), with the
-- axis's lower edge (0 for the first band).
with

latency_rubric as (

    select * from {{ ref('latency_rubric') }}

),

bands as (

    {{ latency_bands('latency_rubric') }}

),

final as (

    select
        latency_rubric,
        band_order,
        lower_bound_sec,
        coalesce(lower_bound_sec, 0) as axis_lower_sec,
        upper_bound_sec,
        latency_score
    from bands

)

select * from final
