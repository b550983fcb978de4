{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per recruit set: the six metrics (SPEC 4.4) as the mean of the
-- round results, consistency as the mean over queries (queries run once
-- count as 0), and the optional weighted total (weights: seed
-- recruit_weights).
with

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

items as (

    select * from {{ unbuilt(ref('recruit_item_scores')) }}

),

rounds as (

    select * from {{ ref('recruit_round_scores') }}

),

queries as (

    select * from {{ ref('recruit_query_consistency') }}

),

weights as (

    select * from {{ ref('recruit_weights') }}

),

set_items as (

    select
        set_id,
        file_sha256,
        count(*) as n_items,
        count(*) filter (where latency_class = 'SINGLE') as n_single,
        count(*) filter (where latency_class = 'MULTI') as n_multi,
        count(*) filter (where status = 'error') as n_error,
        count(*) filter (where status = 'empty') as n_empty,
        count(*) filter (where not raw_json_valid) as n_raw_json_invalid,
        count(*) filter (where intent_source = 'verdict') as n_intent_verdict,
        count(*) filter (where check_source = 'none') as n_without_checks,
        count(*) filter (
            where latency_source = 'missing'
        ) as n_latency_missing,
        cast(sum(n_checks) as bigint) as n_checks,
        cast(sum(n_checks_passed) as bigint) as n_checks_passed,
        cast(sum(n_checks_invalid) as bigint) as n_checks_invalid
    from items
    group by set_id, file_sha256

),

round_means as (

    select
        set_id,
        count(*) as n_rounds,
        string_agg(round, ',' order by round_order) as rounds,
        {{ exact_avg('intent_score') }} as intent_score,
        {{ exact_avg('accuracy_score') }} as accuracy_score,
        {{ exact_avg('stability_score') }} as stability_score,
        {{ exact_avg('latency_score') }} as latency_score,
        {{ exact_avg('latency_single_score') }} as latency_single_score,
        {{ exact_avg('latency_multi_score') }} as latency_multi_score,
        {{ exact_avg('latency_single_sec') }} as latency_single_sec,
        {{ exact_avg('latency_multi_sec') }} as latency_multi_sec
    from rounds
    group by set_id

),

consistency as (

    select
        set_id,
        count(*) as n_queries,
        count(*) filter (where not is_scored) as n_queries_single_run,
        {{ exact_avg('consistency_score') }} as consistency_score
    from queries
    group by set_id

),

weight_pivot as (

    select
        max(weight) filter (where metric = 'intent') as intent_weight,
        max(weight) filter (where metric = 'consistency') as consistency_weight,
        max(weight) filter (where metric = 'accuracy') as accuracy_weight,
        max(weight) filter (where metric = 'latency') as latency_weight,
        max(weight) filter (where metric = 'stability') as stability_weight
    from weights

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
        round_means.rounds,
        consistency.n_queries,
        consistency.n_queries_single_run,
        set_items.n_single,
        set_items.n_multi,
        round_means.intent_score,
        round_means.accuracy_score,
        consistency.consistency_score,
        round_means.latency_single_score,
        round_means.latency_multi_score,
        round_means.latency_score,
        round_means.latency_single_sec,
        round_means.latency_multi_sec,
        round_means.stability_score,
        weight_pivot.intent_weight * round_means.intent_score
        + weight_pivot.consistency_weight * consistency.consistency_score
        + weight_pivot.accuracy_weight * round_means.accuracy_score
        + weight_pivot.latency_weight * round_means.latency_score
        + weight_pivot.stability_weight * round_means.stability_score
            as weighted_total,
        set_items.n_error,
        set_items.n_empty,
        set_items.n_raw_json_invalid,
        set_items.n_intent_verdict,
        set_items.n_without_checks,
        set_items.n_latency_missing,
        set_items.n_checks,
        set_items.n_checks_passed,
        set_items.n_checks_invalid,
        {{ scoring_version('recruit_agent') }} as scoring_version
    from set_items
    inner join current_sets
        on set_items.set_id = current_sets.set_id
    inner join round_means
        on set_items.set_id = round_means.set_id
    inner join consistency
        on set_items.set_id = consistency.set_id
    cross join weight_pivot

)

select * from final
