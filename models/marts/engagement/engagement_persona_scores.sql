{{ config(
    materialized='set_incremental',
    sets_model='int_engagement__runs_current',
    version_column='run_sha256',
) }}
-- One row per persona of every engagement run: personas of the action lines
-- and personas named only in expected.json's perPersona (zero actuals).
-- Actuals per persona; overall similarity and band when expected.json gives
-- the persona's metrics and the run is evaluated.
with

runs as (

    select * from {{ ref('int_engagement__runs_current') }}

),

actuals as (

    select * from {{ unbuilt(ref('int_engagement__actuals')) }}
    where scope = 'persona'

),

overall as (

    select * from {{ ref('int_engagement__overall_scores') }}
    where scope = 'persona'

),

final as (

    select
        actuals.set_id,
        actuals.run_sha256,
        cast(runs.drop_date as date) as drop_date,
        runs.run_id,
        actuals.persona,
        actuals.in_logs,
        actuals.in_expected,
        ---------- lines
        actuals.n_lines,
        actuals.n_not_act,
        actuals.n_not_ok,
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
        overall.interpretation_label_en
    from actuals
    inner join runs
        on actuals.set_id = runs.set_id
    left join overall
        on
            actuals.set_id = overall.set_id
            and actuals.persona = overall.persona

)

select * from final
