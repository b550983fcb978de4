{{ config(
    materialized='set_incremental',
    sets_model='int_engagement__runs_current',
    version_column='run_sha256',
) }}
-- One row per engagement run (a folder <date>/engagement/<run_id>) against
-- its expected.json: actuals, line counts, overall similarity with its
-- weighting and interpretation band (SPEC 5).
with

runs as (

    select * from {{ unbuilt(ref('int_engagement__runs_current')) }}

),

lines as (

    select * from {{ ref('int_engagement__action_lines') }}

),

actuals as (

    select * from {{ ref('int_engagement__actuals') }}
    where scope = 'run'

),

persona_actuals as (

    select * from {{ ref('int_engagement__actuals') }}
    where scope = 'persona'

),

overall as (

    select * from {{ ref('int_engagement__overall_scores') }}
    where scope = 'run'

),

line_rejects as (

    select
        set_id,
        count(*) as n_lines_read,
        count(*) filter (where reject_reason is not null) as n_rejected_lines
    from lines
    group by set_id

),

personas as (

    select
        set_id,
        count(*) filter (where in_logs) as n_personas,
        count(*) filter (where in_expected and not in_logs)
            as n_expected_personas_missing
    from persona_actuals
    group by set_id

),

final as (

    select
        runs.set_id,
        runs.run_sha256,
        cast(runs.drop_date as date) as drop_date,
        runs.run_id,
        actuals.evaluation_state,
        runs.n_action_files,
        runs.expected_file,
        runs.expected_sha256,
        ---------- lines
        cast(coalesce(line_rejects.n_lines_read, 0) as bigint) as n_lines_read,
        actuals.n_lines,
        cast(coalesce(line_rejects.n_rejected_lines, 0) as bigint)
            as n_rejected_lines,
        actuals.n_not_act,
        actuals.n_not_ok,
        cast(coalesce(personas.n_personas, 0) as bigint) as n_personas,
        cast(coalesce(personas.n_expected_personas_missing, 0) as bigint)
            as n_expected_personas_missing,
        ---------- actuals
        actuals.total_acts,
        actuals.like_count,
        actuals.comment_count,
        round(actuals.like_rate, {{ var('engagement_decimals') }})
            as like_rate,
        round(actuals.comment_rate, {{ var('engagement_decimals') }})
            as comment_rate,
        actuals.engagement_count,
        ---------- similarity
        overall.n_metrics,
        overall.metrics,
        overall.weight_sum,
        overall.weighting_method,
        overall.is_weight_fallback,
        overall.overall_similarity,
        overall.interpretation_band,
        overall.interpretation_label,
        overall.interpretation_label_en,
        runs.loaded_at,
        {{ scoring_version('engagement') }} as scoring_version
    from runs
    inner join actuals
        on runs.set_id = actuals.set_id
    left join overall
        on runs.set_id = overall.set_id
    left join line_rejects
        on runs.set_id = line_rejects.set_id
    left join personas
        on runs.set_id = personas.set_id

)

select * from final
