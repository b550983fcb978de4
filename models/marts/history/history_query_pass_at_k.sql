{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_item_sets() }}",
) }}
-- depends_on: {{ ref('int_history__sets') }}
-- One row per (set, query, k) for k = 1..n runs: with c passing runs of n,
--   pass@k = 1 - C(n - c, k) / C(n, k)  (unbiased: some of k runs drawn
--            without replacement passes),
--   pass^k = C(c, k) / C(n, k)          (all k drawn runs pass),
--   at_least_k = c >= k                 (Inspect's at_least_k reducer).
with

repeats as (

    select * from {{ ref('history_query_repeats') }}
    where
        {{ is_unbuilt_item_set() }}

),

expanded as (

    select
        repeats.agent,
        repeats.set_id,
        repeats.file_sha256,
        repeats.query_id,
        repeats.n_runs,
        repeats.n_pass,
        cast(ks.k as bigint) as k
    from repeats
    cross join lateral range(1, repeats.n_runs + 1) as ks (k)

),

final as (

    select
        agent,
        set_id,
        file_sha256,
        query_id,
        k,
        n_runs,
        n_pass,
        1 - {{ comb('n_runs - n_pass', 'k') }} / {{ comb('n_runs', 'k') }}
            as pass_at_k,
        {{ comb('n_pass', 'k') }} / {{ comb('n_runs', 'k') }} as pass_hat_k,
        n_pass >= k as at_least_k
    from expanded

)

select * from final
