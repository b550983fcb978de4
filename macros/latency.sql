{% macro latency_bands(rubric_relation) -%}
    {#- One row per score band of each latency rubric (seed latency_rubric,
        which lists upper bounds): the band is (lower, upper], starting where
        the previous band ends (null lower bound: the first band takes
        everything up to its upper bound). The one definition of the bands:
        the resume and recruit item models and rpt_latency_bands (the charts)
        all use it. -#}
    select
        latency_rubric,
        band_order,
        lag(upper_bound_sec) over (
            partition by latency_rubric order by band_order
        ) as lower_bound_sec,
        upper_bound_sec,
        score as latency_score
    from {{ rubric_relation }}
{%- endmacro %}
