-- One row per (set, set-level metric) that has a baseline: the change
-- against the baseline set of its series, a 95% interval of the change and
-- a verdict. A change is beyond noise when its interval excludes 0 and it is
-- at least the metric's min_delta (seed history_metrics, as
-- history_set_metrics resolves it) in size; without
-- an interval (a side with one cluster) the size alone decides. A
-- comparison across scoring versions is flagged, never silent.
with

set_metrics as (

    select * from {{ ref('history_set_metrics') }}

),

sets as (

    select * from {{ ref('int_history__sets') }}

),

paired as (

    select
        cur.set_id,
        cur.agent,
        cur.series_id,
        cur.drop_date,
        cur.set_seq,
        cur.is_latest,
        cur.metric,
        cur.metric_label,
        cur.metric_order,
        cur.direction,
        sets.baseline_set_id,
        sets.baseline_source,
        base.drop_date as baseline_drop_date,
        cur.metric_value,
        base.metric_value as baseline_value,
        round(cur.metric_value - base.metric_value, 12) as delta,
        cur.n_clusters,
        base.n_clusters as baseline_n_clusters,
        sqrt(cur.std_error ** 2 + base.std_error ** 2) as delta_std_error,
        {{ t_critical_975('least(cur.n_clusters, base.n_clusters) - 1') }}
            as t_critical,
        cur.scoring_version,
        base.scoring_version as baseline_scoring_version,
        cur.min_delta
    from set_metrics as cur
    inner join sets
        on cur.set_id = sets.set_id
    inner join set_metrics as base
        on
            sets.baseline_set_id = base.set_id
            and cur.metric = base.metric

),

bounded as (

    select
        *,
        round(delta - t_critical * delta_std_error, 12) as delta_ci_low,
        round(delta + t_critical * delta_std_error, 12) as delta_ci_high,
        -- the change in the metric's good direction
        case direction
            when 'lower_is_better' then -1
            else 1
        end as sign
    from paired

),

final as (

    select
        set_id,
        agent,
        series_id,
        drop_date,
        set_seq,
        is_latest,
        metric,
        metric_label,
        metric_order,
        direction,
        baseline_set_id,
        baseline_source,
        baseline_drop_date,
        metric_value,
        baseline_value,
        delta,
        n_clusters,
        baseline_n_clusters,
        round(delta_std_error, 12) as delta_std_error,
        delta_ci_low,
        delta_ci_high,
        min_delta,
        case
            when delta_std_error is not null then 'interval_and_min_delta'
            else 'min_delta_only'
        end as verdict_basis,
        case
            when
                sign * delta <= -min_delta
                and (
                    delta_std_error is null
                    or (sign = 1 and delta_ci_high < 0)
                    or (sign = -1 and delta_ci_low > 0)
                )
                then 'regressed'
            when
                sign * delta >= min_delta
                and (
                    delta_std_error is null
                    or (sign = 1 and delta_ci_low > 0)
                    or (sign = -1 and delta_ci_high < 0)
                )
                then 'improved'
            else 'within_noise'
        end as verdict,
        scoring_version,
        baseline_scoring_version,
        scoring_version <> baseline_scoring_version
            as is_scoring_version_changed
    from bounded

)

select * from final
