{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per (recruit set, set-level metric): the six metrics as
-- recruit_set_scores computes them (mean of round means; consistency the
-- mean over queries) and the weighted total, each with its n and its
-- standard error clustered by query. The weighted total's standard error
-- sums the weighted per-query residuals of its terms (linearization).
with

items as (

    select * from {{ unbuilt(ref('recruit_item_scores')) }}

),

queries as (

    select * from {{ unbuilt(ref('recruit_query_consistency')) }}

),

weights as (

    select * from {{ ref('recruit_weights') }}

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
            (
                'latency_single_score',
                case
                    when items.latency_class = 'SINGLE' then items.latency_score
                end
            ),
            (
                'latency_multi_score',
                case
                    when items.latency_class = 'MULTI' then items.latency_score
                end
            )
        ) as metrics (metric, metric_value)

    union all

    select
        set_id,
        file_sha256,
        'consistency_score' as metric,
        'all' as group_key,
        query_id as cluster_id,
        consistency_score as metric_value
    from queries

),

{{ cluster_residuals('observations') }},

-- the weighted total: sum of weight x metric value; per query, the same
-- weighted sum of the metric residual sums; then every metric's error
term_weights as (

    select
        metric || '_score' as metric,
        weight
    from weights

),

total_values as (

    -- the same expression as recruit_set_scores.weighted_total
    select
        metric_values.set_id,
        metric_values.file_sha256,
        'weighted_total' as metric,
        {% for term in [
            'intent_score', 'consistency_score', 'accuracy_score',
            'latency_score', 'stability_score'
        ] %}
            {{ '+ ' if not loop.first }}max(term_weights.weight) filter (
                where metric_values.metric = '{{ term }}'
            )
            * max(metric_values.metric_value) filter (
                where metric_values.metric = '{{ term }}'
            )
        {% endfor %} as metric_value,
        max(metric_values.n_obs) as n_obs
    from metric_values
    inner join term_weights
        on metric_values.metric = term_weights.metric
    group by metric_values.set_id, metric_values.file_sha256

),

total_cluster_sums as (

    select
        cluster_sums.set_id,
        'weighted_total' as metric,
        cluster_sums.cluster_id,
        sum(term_weights.weight * cluster_sums.residual_sum) as residual_sum
    from cluster_sums
    inner join term_weights
        on cluster_sums.metric = term_weights.metric
    group by cluster_sums.set_id, cluster_sums.cluster_id

),

all_values as (

    select * from metric_values
    union all
    select * from total_values

),

all_cluster_sums as (

    select * from cluster_sums
    union all
    select * from total_cluster_sums

),

{{ cluster_robust_stats('all_values', 'all_cluster_sums') }},

final as (

    select
        set_id,
        file_sha256,
        'recruit_agent' as agent,
        metric,
        metric_value,
        n_obs,
        n_clusters,
        std_error,
        {{ scoring_version('recruit_agent') }} as scoring_version
    from metric_stats

)

select * from final
