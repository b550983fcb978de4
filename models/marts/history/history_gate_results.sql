-- One row per (quality gate, latest set of a series of the gate's agent):
-- the gate of seed quality_gates checked on the newest night. A gate fails
-- when the metric is below min_score, or when it lost more than
-- max_regression against the baseline (in the metric's good direction).
-- A gate whose metric the set does not have is `no_data` (reported, not
-- failed). Plus one freshness gate per series of seed expected_series:
-- `stale` when its newest set is older than allowed on the build's date, or
-- never arrived. The test assert_quality_gates_pass fails the build on any
-- fail or stale. The build's date is a literal in the compiled SQL, so the
-- model runs again (it is not reused) on each new day.
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

expected as (

    select * from {{ ref('expected_series') }}

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

freshness as (

    select
        'freshness:' || expected.series_id as gate_id,
        expected.agent,
        'freshness' as metric,
        expected.series_id,
        sets.set_id,
        sets.drop_date,
        expected.max_age_days,
        expected.cadence,
        case expected.cadence
            when 'weekdays'
                then (
                    select count(*)
                    from
                        range(
                            sets.drop_date + 1,
                            date '{{ freshness_as_of() }}' + 1,
                            interval 1 day
                        ) as weekday_range (calendar_day)
                    where isodow(weekday_range.calendar_day) <= 5
                )
            else
                date_diff(
                    'day', sets.drop_date, date '{{ freshness_as_of() }}'
                )
        end as age_days
    from expected
    left join sets
        on expected.series_id = sets.series_id

),

freshness_checked as (

    select
        gate_id,
        agent,
        metric,
        series_id,
        set_id,
        drop_date,
        cast(null as double) as min_score,
        cast(null as double) as max_regression,
        cast(age_days as double) as metric_value,
        cast(null as varchar) as baseline_set_id,
        cast(null as double) as baseline_value,
        cast(null as double) as delta,
        case
            when set_id is null or age_days > max_age_days then 'stale'
            else 'pass'
        end as status,
        case
            when set_id is null
                then
                    'expected series ' || series_id || ' (' || agent
                    || ', ' || cadence || '): no set has ever arrived'
            when age_days > max_age_days
                then
                    'expected series ' || series_id || ' (' || agent
                    || ', ' || cadence || '): the newest set ' || set_id
                    || ' is ' || age_days || ' day(s) old on '
                    || '{{ freshness_as_of() }}, allowed ' || max_age_days
        end as reason,
        false as is_scoring_version_changed
    from freshness

),

metric_gates as (

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

),

final as (

    select * from metric_gates
    union all
    select * from freshness_checked

)

select * from final
