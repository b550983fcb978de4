-- One row per evaluated subject of every run: scope `run` (persona null) and
-- scope `persona` (every persona of the run's action lines, plus personas
-- named only in expected.json's perPersona, which have no line and zero
-- actuals). Only lines with action.type = act and action.status = ok count
-- (SPEC 5); rates are 0 when there is no counted act. evaluation_state is
-- the run's: `evaluated`, `no_actions` (no usable action line) or
-- `no_expected` (no current expected.json).
with

runs as (

    select * from {{ ref('int_engagement__runs_current') }}

),

lines as (

    select * from {{ ref('int_engagement__action_lines') }}
    where reject_reason is null

),

expected as (

    select * from {{ ref('int_engagement__expected_metrics') }}

),

run_lines as (

    select
        runs.set_id,
        runs.run_sha256,
        'run' as scope,
        null::varchar as persona,
        count(lines.line_number) as n_lines,
        count(*) filter (where lines.line_outcome = 'not_act') as n_not_act,
        count(*) filter (where lines.line_outcome = 'not_ok') as n_not_ok,
        count(*) filter (where lines.is_counted) as total_acts,
        count(*) filter (where lines.is_counted and lines.is_liked)
            as like_count,
        count(*) filter (where lines.is_counted and lines.is_commented)
            as comment_count
    from runs
    left join lines
        on runs.set_id = lines.set_id
    group by runs.set_id, runs.run_sha256

),

persona_lines as (

    select
        set_id,
        run_sha256,
        'persona' as scope,
        persona,
        count(*) as n_lines,
        count(*) filter (where line_outcome = 'not_act') as n_not_act,
        count(*) filter (where line_outcome = 'not_ok') as n_not_ok,
        count(*) filter (where is_counted) as total_acts,
        count(*) filter (where is_counted and is_liked) as like_count,
        count(*) filter (where is_counted and is_commented) as comment_count
    from lines
    group by set_id, run_sha256, persona

),

expected_subjects as (

    select distinct
        set_id,
        scope,
        persona
    from expected

),

expected_only_personas as (

    select
        expected_subjects.set_id,
        runs.run_sha256,
        'persona' as scope,
        expected_subjects.persona,
        0 as n_lines,
        0 as n_not_act,
        0 as n_not_ok,
        0 as total_acts,
        0 as like_count,
        0 as comment_count
    from expected_subjects
    inner join runs
        on expected_subjects.set_id = runs.set_id
    where
        expected_subjects.scope = 'persona'
        and not exists (
            select 1
            from persona_lines
            where
                persona_lines.set_id = expected_subjects.set_id
                and persona_lines.persona = expected_subjects.persona
        )

),

run_states as (

    select
        run_lines.set_id,
        case
            when run_lines.n_lines = 0 then 'no_actions'
            when runs.expected_file is null then 'no_expected'
            else 'evaluated'
        end as evaluation_state
    from run_lines
    inner join runs
        on run_lines.set_id = runs.set_id

),

subjects as (

    select * from run_lines
    union all
    select * from persona_lines
    union all
    select * from expected_only_personas

),

final as (

    select
        subjects.set_id,
        subjects.run_sha256,
        subjects.scope,
        subjects.persona,
        run_states.evaluation_state,
        subjects.n_lines > 0 as in_logs,
        expected_subjects.set_id is not null as in_expected,
        (subjects.n_lines)::bigint as n_lines,
        (subjects.n_not_act)::bigint as n_not_act,
        (subjects.n_not_ok)::bigint as n_not_ok,
        (subjects.total_acts)::bigint as total_acts,
        (subjects.like_count)::bigint as like_count,
        (subjects.comment_count)::bigint as comment_count,
        case
            when subjects.total_acts > 0
                then subjects.like_count / subjects.total_acts
            else 0
        end::double as like_rate,
        case
            when subjects.total_acts > 0
                then subjects.comment_count / subjects.total_acts
            else 0
        end::double as comment_rate,
        (subjects.like_count + subjects.comment_count)::bigint
            as engagement_count
    from subjects
    inner join run_states
        on subjects.set_id = run_states.set_id
    left join expected_subjects
        on
            subjects.set_id = expected_subjects.set_id
            and subjects.scope = expected_subjects.scope
            and subjects.persona is not distinct from expected_subjects.persona

)

select * from final
