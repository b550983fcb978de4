-- One row per current set of every registered agent: what the morning
-- page and the viewer's cards count about it. Metric verdicts against the
-- baseline (history_metric_diffs), failed gates (history_gate_results) and
-- the matched item pairs of its flip test (history_flip_tests; null when
-- the set has none: no items, no baseline, or not the newest of its series).
with

sets as (

    select * from {{ ref('int_history__sets') }}

),

diffs as (

    select * from {{ ref('history_metric_diffs') }}

),

gates as (

    select * from {{ ref('history_gate_results') }}

),

flip_tests as (

    select * from {{ ref('history_flip_tests') }}

),

verdicts as (

    select
        set_id,
        count(*) as n_metrics_compared,
        count(*) filter (where verdict = 'regressed') as n_metrics_regressed,
        count(*) filter (where verdict = 'improved') as n_metrics_improved,
        count(*) filter (where verdict = 'within_noise')
            as n_metrics_within_noise
    from diffs
    group by set_id

),

failed_gates as (

    select
        set_id,
        count(*) filter (where status = 'fail') as n_gates_failed
    from gates
    where set_id is not null
    group by set_id

),

final as (

    select
        sets.set_id,
        sets.agent,
        sets.series_id,
        sets.drop_date,
        coalesce(verdicts.n_metrics_compared, 0) as n_metrics_compared,
        coalesce(verdicts.n_metrics_regressed, 0) as n_metrics_regressed,
        coalesce(verdicts.n_metrics_improved, 0) as n_metrics_improved,
        coalesce(verdicts.n_metrics_within_noise, 0)
            as n_metrics_within_noise,
        coalesce(failed_gates.n_gates_failed, 0) as n_gates_failed,
        flip_tests.n_matched as n_flip_pairs,
        flip_tests.n_pass_fail as n_pass_to_fail,
        flip_tests.n_fail_pass as n_fail_to_pass
    from sets
    left join verdicts
        on sets.set_id = verdicts.set_id
    left join failed_gates
        on sets.set_id = failed_gates.set_id
    left join flip_tests
        on sets.set_id = flip_tests.set_id

)

select * from final
