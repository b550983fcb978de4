-- One row per (drop date, series) with a set compared against its
-- baseline that day: the metric verdicts of the series' sets of the day
-- (one set, or several engagement runs scored against the same ground
-- truth), summed. The morning page's overview chart draws one bar each.
with

set_counts as (

    select * from {{ ref('rpt_history_set_counts') }}
    where n_metrics_compared > 0

),

final as (

    select
        drop_date,
        agent,
        series_id,
        count(*) as n_sets,
        cast(sum(n_metrics_regressed) as bigint) as n_metrics_regressed,
        cast(sum(n_metrics_within_noise) as bigint) as n_metrics_within_noise,
        cast(sum(n_metrics_improved) as bigint) as n_metrics_improved
    from set_counts
    group by drop_date, agent, series_id

)

select * from final
