{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per resume set: the mean of its round results (not the pooled item
-- mean, SPEC 3.5) and consistency as the mean over round pairs with pairs.
with

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

rounds as (

    select * from {{ unbuilt(ref('resume_round_scores')) }}

),

round_pairs as (

    select * from {{ unbuilt(ref('resume_consistency_round_pairs')) }}

),

set_items as (

    select
        set_id,
        file_sha256,
        count(*) as n_items,
        count(distinct query_id) as n_queries,
        count(*) filter (where track = 1) as n_track_1,
        count(*) filter (where track = 2) as n_track_2,
        count(*) filter (where track = 3) as n_track_3,
        count(*) filter (where is_duplicate) as n_duplicate_rows,
        count(*) filter (
            where status_reason = 'raw_json_invalid'
        ) as n_raw_json_invalid,
        count(*) filter (where label_source = 'llm') as n_llm_scored,
        count(*) filter (where is_llm_score_invalid) as n_llm_score_invalid
    from items
    group by set_id, file_sha256

),

query_rounds as (

    select
        set_id,
        query_id,
        count(distinct round) as n_rounds_run
    from items
    group by set_id, query_id

),

unpaired as (

    select
        set_id,
        count(*) filter (where n_rounds_run = 1) as n_unpaired_queries
    from query_rounds
    group by set_id

),

round_means as (

    select
        set_id,
        count(*) as n_rounds,
        string_agg(round, ',' order by round_order) as rounds,
        {{ exact_avg('intent_score') }} as intent_score,
        {{ exact_avg('accuracy_score') }} as accuracy_score,
        {{ exact_avg('stability_score') }} as stability_score,
        {{ exact_avg('latency_sec') }} as latency_sec,
        {{ exact_avg('latency_score') }} as latency_score
    from rounds
    group by set_id

),

consistency as (

    select
        set_id,
        sum(n_pairs) as n_consistency_pairs,
        {{ exact_avg('consistency_score') }} as consistency_score
    from round_pairs
    group by set_id

),

final as (

    select
        set_items.set_id,
        set_items.file_sha256,
        current_sets.file_name,
        cast(current_sets.drop_date as date) as drop_date,
        current_sets.encoding,
        current_sets.loaded_at,
        set_items.n_items,
        round_means.n_rounds,
        set_items.n_queries,
        round_means.rounds,
        set_items.n_track_1,
        set_items.n_track_2,
        set_items.n_track_3,
        round_means.intent_score,
        round_means.accuracy_score,
        round_means.stability_score,
        consistency.consistency_score,
        round_means.latency_sec,
        round_means.latency_score,
        cast(coalesce(consistency.n_consistency_pairs, 0) as bigint)
            as n_consistency_pairs,
        case
            when round_means.n_rounds > 1
                then coalesce(unpaired.n_unpaired_queries, 0)
            else 0
        end as n_unpaired_queries,
        set_items.n_duplicate_rows,
        set_items.n_raw_json_invalid,
        set_items.n_llm_scored,
        set_items.n_llm_score_invalid,
        {{ scoring_version('resume_agent') }} as scoring_version
    from set_items
    inner join current_sets
        on set_items.set_id = current_sets.set_id
    inner join round_means
        on set_items.set_id = round_means.set_id
    left join consistency
        on set_items.set_id = consistency.set_id
    left join unpaired
        on set_items.set_id = unpaired.set_id

)

select * from final
