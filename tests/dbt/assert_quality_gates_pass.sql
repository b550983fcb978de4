-- Quality gates (seed quality_gates, mart history_gate_results): the build
-- fails when a gate fails on the newest set of a series, or an expected
-- series is stale (seed expected_series), and the error names
-- every failing agent, metric, value and set. Runs after the gate log is
-- written, so a failing night is kept in history_gate_log, and after
-- ops.delivery_issues, which lists the stale series for owners.
-- depends_on: {{ ref('history_gate_log') }}
-- depends_on: {{ ref('delivery_issues') }}
{{ config(severity='error') }}
with

failures as (

    select * from {{ ref('history_gate_results') }}
    where status in ('fail', 'stale')

),

failed as (

    select
        count(*) as n_failed_gates,
        string_agg(reason, ' | ' order by gate_id, set_id) as reasons
    from failures

)

-- error() sits in the filter, where no column pruning can drop it: the
-- message reaches dbt's output instead of a bare "Got 1 result"
select
    n_failed_gates,
    reasons
from failed
where
    case
        when n_failed_gates > 0
            then error('quality gate(s) failed: ' || reasons) is null
        else false
    end
