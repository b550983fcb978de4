{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (resume set, set-level metric): the value as the set marts
-- compute it (mean of round means; consistency the mean over round pairs),
-- its n and its standard error clustered by query (macros/history.sql).
with

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

pairs as (

    select * from {{ unbuilt(ref('resume_consistency_pairs')) }}

),

observations as (

    select
        items.set_id,
        items.file_sha256,
        metrics.metric,
        items.round as group_key,
        items.query_id as cluster_id,
        metrics.metric_value
    from items
    cross join
        lateral (
            values
            ('intent_score', items.intent_score),
            ('accuracy_score', items.accuracy_score),
            ('stability_score', items.stability_score),
            ('latency_score', items.latency_score),
            ('latency_sec', items.latency_sec)
        ) as metrics (metric, metric_value)

    union all

    select
        set_id,
        file_sha256,
        'consistency_score' as metric,
        round_a || ' ~ ' || round_b as group_key,
        query_id as cluster_id,
        case
            when outcome in ('both_pass', 'both_fail')
                then {{ var('score_max') }}
            else 0
        end as metric_value
    from pairs

),

{{ cluster_mean_stats('observations') }},

final as (

    select
        set_id,
        file_sha256,
        'resume_agent' as agent,
        metric,
        metric_value,
        n_obs,
        n_clusters,
        std_error,
        {{ scoring_version('resume_agent') }} as scoring_version
    from metric_stats

)

select * from final
