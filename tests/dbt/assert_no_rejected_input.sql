-- Rejected input (ops.rejected_files, ops.rejected_rows) reaches dbt's own
-- output, for operators who run plain `dbt build`: the same condition as
-- exit 3 of `agent-eval build` (the latest observation of a file is a
-- rejection, or a current set has rejected rows). Severity is the var
-- rejected_input_severity: 'error' (default, so a scheduler alerts) fails the
-- build with every file and reason in the message; 'warn' logs one line per
-- file and warns. The tested models' one child, ops.delivery_issues (what
-- the morning page and the viewer show owners), runs before this test
-- (depends_on), so a failure skips no model: every good set is still built
-- and the rejections are listed. `agent-eval build` tolerates this failure
-- (it publishes and exits 3), as it does a failing quality gate.
-- depends_on: {{ ref('delivery_issues') }}
{{ config(severity=var('rejected_input_severity', 'error')) }}
{%- set strict = var('rejected_input_severity', 'error') | lower == 'error' %}
{%- do log_rejected_input(ref('rejected_files'), ref('rejected_rows')) %}
with

rejected_files as (

    select
        source_file,
        'file rejected: ' || reject_reason as reason
    from {{ ref('rejected_files') }}
    where is_latest

),

rejected_rows as (

    select
        source_file,
        count(*) || ' row(s) rejected, first on line '
        || min(line_number) || ': '
        || arg_min(reason_detail, line_number) as reason
    from {{ ref('rejected_rows') }}
    where is_current
    group by source_file

),

rejections as (

    select * from rejected_files
    union all
    select * from rejected_rows

),


summary as (

    select
        count(*) as n_rejections,
        string_agg(
            source_file || ' (' || reason || ')', ' | ' order by source_file
        ) as reasons
    from rejections

)

-- error() sits in the filter, where no column pruning can drop it: the
-- message reaches dbt's output instead of a bare "Got 1 result"
select
    n_rejections,
    reasons
from summary
where
    case
        when n_rejections = 0 then false
        when {{ 'true' if strict else 'false' }}
            then error(
                'rejected input (ops.rejected_files, ops.rejected_rows): '
                || reasons
            ) is null
        else true
    end
