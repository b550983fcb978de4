-- One row per (quality gate, latest set of a series of the gate's agent):
-- the gate of seed quality_gates checked on the newest night. A gate fails
-- when the metric is below min_score, or when it lost more than
-- max_regression against the baseline (in the metric's good direction).
-- A gate whose metric the set does not have is `no_data` (reported, not
-- failed). The test assert_quality_gates_pass fails the build on any fail.
with

gates as (

    select * from {{ ref('quality_gates') }}

),

sets as (

    select * from {{ ref('int_history__sets') }}
    where is_latest

),

set_metrics as (

    select * from {{ ref('history_set_metrics') }}

),

diffs as (

    select * from {{ ref('history_metric_diffs') }}

),

checked as (

    select
        gates.agent || ':' || gates.metric as gate_id,
        gates.agent,
        gates.metric,
        sets.series_id,
        sets.set_id,
        sets.drop_date,
        gates.min_score,
        gates.max_regression,
        set_metrics.metric_value,
        diffs.baseline_set_id,
        diffs.baseline_value,
        diffs.delta,
        set_metrics.metric_value is not null as has_value,
        set_metrics.metric_value < gates.min_score as is_below_min,
        case set_metrics.direction
            when 'lower_is_better' then diffs.delta > gates.max_regression
            else diffs.delta < -gates.max_regression
        end as is_regression_too_large,
        coalesce(diffs.is_scoring_version_changed, false)
            as is_scoring_version_changed
    from gates
    inner join sets
        on gates.agent = sets.agent
    left join set_metrics
        on
            sets.set_id = set_metrics.set_id
            and gates.metric = set_metrics.metric
    left join diffs
        on
            sets.set_id = diffs.set_id
            and gates.metric = diffs.metric

),

final as (

    select
        gate_id,
        agent,
        metric,
        series_id,
        set_id,
        drop_date,
        min_score,
        max_regression,
        metric_value,
        baseline_set_id,
        baseline_value,
        delta,
        case
            when not has_value then 'no_data'
            when
                coalesce(is_below_min, false)
                or coalesce(is_regression_too_large, false)
                then 'fail'
            else 'pass'
        end as status,
        concat_ws(
            '; ',
            case
                when not has_value
                    then
                        agent || ' ' || metric || ': no value in set '
                        || set_id
            end,
            case
                when is_below_min
                    then
                        agent || ' ' || metric || ' = '
                        || printf('%.3f', metric_value) || ' < min_score '
                        || printf('%.3f', min_score) || ' in set ' || set_id
            end,
            case
                when is_regression_too_large
                    then
                        agent || ' ' || metric || ' changed by '
                        || printf('%+.3f', delta) || ' against baseline '
                        || baseline_set_id || ' (max_regression '
                        || printf('%.3f', max_regression) || ') in set '
                        || set_id
            end
        ) as reason,
        is_scoring_version_changed
    from checked

)

select * from final
