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


{% macro latency_histogram(panels, bins) -%}
    {#- One row per (set_id, file_sha256, panel_order, bin) with items:
        `panels` names a CTE with set_id, file_sha256, panel_order,
        panel_title, latency_rubric and latency_sec per item; `bins` the
        rubrics' bins (rpt_latency_histogram_bins). A latency goes to the
        bin (k x width, (k + 1) x width] (closed on the right, like the
        bands), above the last bin to the overflow bin; bin -1 counts the
        items without a latency. Items whose rubric has no bins are left
        out. -#}
    select
        panels.set_id,
        panels.file_sha256,
        cast(panels.panel_order as integer) as panel_order,
        any_value(panels.panel_title) as panel_title,
        panels.latency_rubric,
        case
            when panels.latency_sec is null then -1
            else greatest(least(
                cast(ceil(panels.latency_sec / widths.bin_width_sec)
                    as integer) - 1,
                widths.n_bins - 1
            ), 0)
        end as bin,
        count(*) as n_items
    from {{ panels }} as panels
    inner join (
        select distinct
            latency_rubric,
            bin_width_sec,
            n_bins
        from {{ bins }}
    ) as widths
        on panels.latency_rubric = widths.latency_rubric
    group by all
{%- endmacro %}
