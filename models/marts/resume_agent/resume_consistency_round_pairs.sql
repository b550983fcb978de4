{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, round pair a < b): pair outcomes and the consistency
-- score 5 x (both_pass + both_fail) / pairs (SPEC 3.4). Queries that ran in
-- only one of the two rounds are counted as unpaired, not scored.
with

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

pairs as (

    select * from {{ unbuilt(ref('resume_consistency_pairs')) }}

),

round_queries as (

    select
        set_id,
        file_sha256,
        round,
        round_order,
        count(distinct query_id) as n_queries
    from items
    group by set_id, file_sha256, round, round_order

),

round_pairs as (

    select
        round_a.set_id,
        round_a.file_sha256,
        round_a.round as round_a,
        round_b.round as round_b,
        round_a.round_order as round_a_order,
        round_b.round_order as round_b_order,
        round_a.n_queries as n_queries_a,
        round_b.n_queries as n_queries_b
    from round_queries as round_a
    inner join round_queries as round_b
        on
            round_a.set_id = round_b.set_id
            and round_a.round_order < round_b.round_order

),

outcomes as (

    select
        set_id,
        round_a,
        round_b,
        count(*) as n_pairs,
        count(*) filter (where outcome = 'both_pass') as n_both_pass,
        count(*) filter (where outcome = 'both_fail') as n_both_fail,
        count(*) filter (where outcome = 'mismatch') as n_mismatch
    from pairs
    group by set_id, round_a, round_b

),

final as (

    select
        round_pairs.set_id,
        round_pairs.file_sha256,
        round_pairs.round_a,
        round_pairs.round_b,
        round_pairs.round_a_order,
        round_pairs.round_b_order,
        coalesce(outcomes.n_pairs, 0) as n_pairs,
        coalesce(outcomes.n_both_pass, 0) as n_both_pass,
        coalesce(outcomes.n_both_fail, 0) as n_both_fail,
        coalesce(outcomes.n_mismatch, 0) as n_mismatch,
        round_pairs.n_queries_a + round_pairs.n_queries_b
        - 2 * coalesce(outcomes.n_pairs, 0) as n_unpaired,
        {{ var('score_max') }}
        * (outcomes.n_both_pass + outcomes.n_both_fail)
        / nullif(outcomes.n_pairs, 0) as consistency_score
    from round_pairs
    left join outcomes
        on
            round_pairs.set_id = outcomes.set_id
            and round_pairs.round_a = outcomes.round_a
            and round_pairs.round_b = outcomes.round_b

)

select * from final
