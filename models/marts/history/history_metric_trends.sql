-- One row per (series, set-level metric, set), in drop-date order: the value
-- with its 95% interval, rolling means over the last 7 and 28 sets of the
-- series (the set itself included; fewer at the start of a series, n says
-- how many) and the set's baseline.
with

set_metrics as (

    select * from {{ ref('history_set_metrics') }}

),

sets as (

    select * from {{ ref('int_history__sets') }}

),

rolled as (

    select
        set_metrics.*,
        avg(set_metrics.metric_value) over last_7 as rolling_7_mean,
        count(set_metrics.metric_value) over last_7 as rolling_7_n,
        avg(set_metrics.metric_value) over last_28 as rolling_28_mean,
        count(set_metrics.metric_value) over last_28 as rolling_28_n
    from set_metrics
    window
        last_7 as (
            partition by set_metrics.series_id, set_metrics.metric
            order by set_metrics.set_seq
            rows between 6 preceding and current row
        ),
        last_28 as (
            partition by set_metrics.series_id, set_metrics.metric
            order by set_metrics.set_seq
            rows between 27 preceding and current row
        )

),

final as (

    select
        rolled.series_id,
        rolled.agent,
        rolled.metric,
        rolled.metric_label,
        rolled.metric_order,
        rolled.direction,
        rolled.set_id,
        rolled.drop_date,
        rolled.set_seq,
        rolled.is_latest,
        rolled.metric_value,
        rolled.n_obs,
        rolled.n_clusters,
        rolled.ci_low,
        rolled.ci_high,
        round(rolled.rolling_7_mean, 12) as rolling_7_mean,
        cast(rolled.rolling_7_n as bigint) as rolling_7_n,
        round(rolled.rolling_28_mean, 12) as rolling_28_mean,
        cast(rolled.rolling_28_n as bigint) as rolling_28_n,
        sets.baseline_set_id,
        sets.baseline_source,
        rolled.scoring_version
    from rolled
    inner join sets
        on rolled.set_id = sets.set_id

)

select * from final
