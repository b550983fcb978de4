{{ config(
    materialized='set_incremental',
    sets_model='int_history__sets',
    version_column='set_version',
    built_version_column='file_sha256',
) }}
-- One row per (set, query, k) for k = 1..n runs: with c passing runs of n,
--   pass@k = 1 - C(n - c, k) / C(n, k)  (unbiased: some of k runs drawn
--            without replacement passes),
--   pass^k = C(c, k) / C(n, k)          (all k drawn runs pass),
--   at_least_k = c >= k                 (Inspect's at_least_k reducer).
with

repeats as (

    select * from {{ unbuilt_item_sets(ref('history_query_repeats')) }}

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
