-- One row per drop date with a current set: the counts the morning page
-- gives for the day, summed over the day's sets (rpt_history_set_counts).
with

set_counts as (

    select * from {{ ref('rpt_history_set_counts') }}

),

final as (

    select
        drop_date,
        count(*) as n_sets,
        cast(sum(n_metrics_regressed) as bigint) as n_metrics_regressed,
        cast(sum(n_metrics_improved) as bigint) as n_metrics_improved,
        cast(sum(n_metrics_within_noise) as bigint) as n_metrics_within_noise,
        cast(sum(n_gates_failed) as bigint) as n_gates_failed,
        cast(coalesce(sum(n_pass_to_fail), 0) as bigint) as n_pass_to_fail,
        cast(coalesce(sum(n_fail_to_pass), 0) as bigint)
            as n_fail_to_pass
    from set_counts
    group by drop_date

)

select * from final
