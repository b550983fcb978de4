-- One row per expected metric of every subject (run, or persona of a run)
-- of the runs whose evaluation_state is `evaluated`: expected vs actual,
-- absolute and relative error, similarity (SPEC 5, source 003 section 4):
--   counts: relative error = |a - e| / max(e, 1),
--           similarity = max(0, 1 - |a - e| / max(e, 1))
--           (the denominator is fixed at 1 when the expectation is 0)
--   rates:  relative error = |a - e| / e (null when e = 0),
--           similarity = max(0, 1 - |a - e|)
-- similarity is clamped to [0, 1]. Output values are rounded to
-- var('engagement_decimals') places; similarity_exact (unrounded) feeds the
-- overall similarity.
with

expected as (

    select * from {{ ref('int_engagement__expected_metrics') }}

),

actuals as (

    select * from {{ ref('int_engagement__actuals') }}

),

paired as (

    select
        expected.set_id,
        expected.run_sha256,
        expected.scope,
        expected.persona,
        expected.metric,
        expected.metric_kind,
        expected.metric_order,
        expected.expected_value,
        case expected.metric
            when 'likeCount' then actuals.like_count
            when 'commentCount' then actuals.comment_count
            when 'likeRate' then actuals.like_rate
            when 'commentRate' then actuals.comment_rate
        end::double as actual_value,
        expected.default_weight,
        expected.weight_override,
        expected.weight
    from expected
    inner join actuals
        on
            expected.set_id = actuals.set_id
            and expected.scope = actuals.scope
            and expected.persona is not distinct from actuals.persona
    where actuals.evaluation_state = 'evaluated'

),

errors as (

    select
        *,
        abs(actual_value - expected_value) as abs_error_exact,
        case metric_kind
            when 'count' then greatest(expected_value, 1)
            when 'rate' then nullif(expected_value, 0)
        end as relative_error_denominator,
        case metric_kind
            when 'count' then greatest(expected_value, 1)
            when 'rate' then 1
        end as similarity_denominator
    from paired

),

similarities as (

    select
        *,
        least(1, greatest(0, 1 - abs_error_exact / similarity_denominator))
            as similarity_exact
    from errors

),

final as (

    select
        set_id,
        run_sha256,
        scope,
        persona,
        metric,
        metric_kind,
        metric_order,
        expected_value,
        round(actual_value, {{ var('engagement_decimals') }}) as actual_value,
        round(abs_error_exact, {{ var('engagement_decimals') }}) as abs_error,
        round(
            abs_error_exact / relative_error_denominator,
            {{ var('engagement_decimals') }}
        ) as relative_error,
        round(similarity_exact, {{ var('engagement_decimals') }})
            as similarity,
        similarity_exact,
        default_weight,
        weight_override,
        weight
    from similarities

)

select * from final
