{{ config(
    materialized='incremental',
    incremental_strategy='append',
) }}
-- The history of gate results (dbt's store_failures keeps only the last
-- run): a row is appended when a gate result is new, i.e. a new latest set,
-- a changed gate or a changed value. Re-running a build with nothing new
-- appends nothing. evaluated_at / invocation_id: the build that first saw it.
with

results as (

    select * from {{ ref('history_gate_results') }}

),

keyed as (

    select
        md5(concat_ws(
            '|', gate_id, set_id, min_score, max_regression, metric_value,
            baseline_set_id, baseline_value, status
        )) as evaluation_key,
        *
    from results

),

final as (

    select
        evaluation_key,
        -- the start of the build's transaction (UTC)
        cast(timezone('UTC', now()) as timestamp) as evaluated_at,
        '{{ invocation_id }}' as invocation_id,
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
        status,
        reason,
        is_scoring_version_changed
    from keyed
    {% if is_incremental() %}
        where evaluation_key not in (
            select built.evaluation_key from {{ this }} as built
        )
    {% endif %}

)

select * from final
