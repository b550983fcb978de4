-- One row per latest resume / recruit set with a baseline: the paired
-- pass/fail table of its items matched with the baseline (history_flips)
-- and McNemar's test of it. b = pass->fail, c = fail->pass; the exact
-- two-sided p-value is min(1, 2 P(X <= min(b, c))), X ~ Binomial(b + c, 1/2);
-- the continuity-corrected statistic (|b - c| - 1)^2 / (b + c) is given
-- too. significant when p < var history_alpha.
with

flips as (

    select * from {{ ref('history_flips') }}

),

tables as (

    select
        agent,
        series_id,
        set_id,
        baseline_set_id,
        count(*) as n_matched,
        count(*) filter (where transition = 'still_pass') as n_pass_pass,
        count(*) filter (where transition = 'pass_to_fail') as n_pass_fail,
        count(*) filter (where transition = 'fail_to_pass') as n_fail_pass,
        count(*) filter (where transition = 'still_fail') as n_fail_fail
    from flips
    group by agent, series_id, set_id, baseline_set_id

),

tested as (

    select
        *,
        {{ mcnemar_exact_p('n_pass_fail', 'n_fail_pass') }} as p_value
    from tables

),

final as (

    select
        agent,
        series_id,
        set_id,
        baseline_set_id,
        cast(n_matched as bigint) as n_matched,
        cast(n_pass_pass as bigint) as n_pass_pass,
        cast(n_pass_fail as bigint) as n_pass_fail,
        cast(n_fail_pass as bigint) as n_fail_pass,
        cast(n_fail_fail as bigint) as n_fail_fail,
        case
            when n_pass_fail + n_fail_pass > 0
                then
                    greatest(abs(n_pass_fail - n_fail_pass) - 1.0, 0) ** 2
                    / (n_pass_fail + n_fail_pass)
        end as chi_square,
        round(p_value, 12) as p_value,
        p_value < {{ var('history_alpha') }} as is_significant,
        case
            when n_pass_fail > n_fail_pass then 'more_pass_to_fail'
            when n_pass_fail < n_fail_pass then 'more_fail_to_pass'
            else 'balanced'
        end as direction
    from tested

)

select * from final
