-- One row per (set, set-level metric) of the four agents over the whole
-- history: the value (read from the agent's set mart), n, and a 95%
-- confidence interval clustered by query (Student t with clusters - 1
-- degrees of freedom, macros/history.sql). No interval when there is one
-- cluster (a query, a case, an engagement run).
with

sets as (

    select * from {{ ref('int_history__sets') }}

),

metric_rules as (

    select * from {{ ref('history_metrics') }}

),

resume_sets as (

    select * from {{ ref('resume_set_scores') }}

),

recruit_sets as (

    select * from {{ ref('recruit_set_scores') }}

),

summary_sets as (

    select * from {{ ref('summary_set_metrics') }}

),

engagement_stats as (

    select * from {{ ref('int_history__engagement_set_stats') }}

),

-- the values as the agents' set marts hold them (one source of truth); the
-- stats models give n and the standard error
mart_values as (

    select
        resume_sets.set_id,
        metrics.metric,
        metrics.metric_value
    from resume_sets
    cross join
        lateral (
            values
            ('intent_score', resume_sets.intent_score),
            ('accuracy_score', resume_sets.accuracy_score),
            ('stability_score', resume_sets.stability_score),
            ('consistency_score', resume_sets.consistency_score),
            ('latency_score', resume_sets.latency_score),
            ('latency_sec', resume_sets.latency_sec)
        ) as metrics (metric, metric_value)

    union all

    select
        recruit_sets.set_id,
        metrics.metric,
        metrics.metric_value
    from recruit_sets
    cross join
        lateral (
            values
            ('intent_score', recruit_sets.intent_score),
            ('accuracy_score', recruit_sets.accuracy_score),
            ('stability_score', recruit_sets.stability_score),
            ('consistency_score', recruit_sets.consistency_score),
            ('latency_score', recruit_sets.latency_score),
            ('latency_single_score', recruit_sets.latency_single_score),
            ('latency_multi_score', recruit_sets.latency_multi_score),
            ('weighted_total', recruit_sets.weighted_total)
        ) as metrics (metric, metric_value)

    union all

    select
        set_id,
        metric,
        mean_score as metric_value
    from summary_sets

    union all

    -- engagement: the run marts' similarities, as the stats model copies
    -- them (one ratio per run, nothing to recompute)
    select
        set_id,
        metric,
        metric_value
    from engagement_stats

),

all_stats as (

    {% for stats_model in [
        'int_history__resume_set_stats',
        'int_history__recruit_set_stats',
        'int_history__summary_set_stats',
        'int_history__engagement_set_stats',
    ] %}
        select
            set_id,
            agent,
            metric,
            metric_value,
            n_obs,
            n_clusters,
            std_error,
            scoring_version
        from {{ ref(stats_model) }}
        {% if not loop.last %}union all{% endif %}
    {% endfor %}

),

with_interval as (

    select
        *,
        {{ t_critical_975('n_clusters - 1') }} as t_critical
    from all_stats

),

final as (

    select
        with_interval.set_id,
        sets.agent,
        sets.series_id,
        sets.drop_date,
        sets.set_seq,
        sets.is_latest,
        with_interval.metric,
        metric_rules.label_ko as metric_label,
        cast(metric_rules.metric_order as integer) as metric_order,
        metric_rules.direction,
        mart_values.metric_value,
        with_interval.metric_value as estimate,
        with_interval.n_obs,
        with_interval.n_clusters,
        with_interval.std_error,
        case
            when with_interval.std_error is not null
                then
                    mart_values.metric_value
                    - with_interval.t_critical * with_interval.std_error
        end as ci_low,
        case
            when with_interval.std_error is not null
                then
                    mart_values.metric_value
                    + with_interval.t_critical * with_interval.std_error
        end as ci_high,
        case
            when with_interval.std_error is not null
                then 'cluster_robust_t'
            else 'none'
        end as ci_method,
        with_interval.scoring_version
    from with_interval
    inner join sets
        on with_interval.set_id = sets.set_id
    inner join mart_values
        on
            with_interval.set_id = mart_values.set_id
            and with_interval.metric = mart_values.metric
    left join metric_rules
        on
            with_interval.agent = metric_rules.agent
            and with_interval.metric = metric_rules.metric

)

select * from final
