-- One row per (set, set-level metric) of every registered agent over the
-- whole history: the value (read from the agent's set mart), n, and a 95%
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

-- each agent's int_<agent>__set_metrics: the value as its set mart holds
-- it (one source of truth), the stats model's estimate, n and error
all_stats as (

    {{ agents_union('set_metrics', [
        'set_id', 'agent', 'metric', 'metric_value', 'estimate', 'n_obs',
        'n_clusters', 'std_error', 'scoring_version'
    ]) }}

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
        -- a rule row of metric '*' covers an agent's metrics named by its
        -- data (an imported tool's scorers): labelled by their own name
        case
            when metric_rules.metric = '*' then with_interval.metric
            else metric_rules.label_ko
        end as metric_label,
        cast(metric_rules.metric_order as integer) as metric_order,
        metric_rules.direction,
        cast(metric_rules.min_delta as double) as min_delta,
        with_interval.metric_value,
        with_interval.estimate,
        with_interval.n_obs,
        with_interval.n_clusters,
        with_interval.std_error,
        {{ interval_bound(
            'low', 'with_interval.metric_value', 'with_interval.std_error',
            'with_interval.t_critical', 'with_interval.n_obs',
            'metric_rules.scale_min', 'metric_rules.scale_max',
            'metric_rules.is_proportion'
        ) }} as ci_low,
        {{ interval_bound(
            'high', 'with_interval.metric_value', 'with_interval.std_error',
            'with_interval.t_critical', 'with_interval.n_obs',
            'metric_rules.scale_min', 'metric_rules.scale_max',
            'metric_rules.is_proportion'
        ) }} as ci_high,
        case
            when with_interval.std_error is null then 'none'
            when metric_rules.is_proportion then 'wilson'
            else 'cluster_robust_t'
        end as ci_method,
        -- few clusters: an interval from them is not to be trusted as
        -- precise (the viewer and the pages say so instead of printing it)
        coalesce(
            with_interval.n_clusters < {{ var('ci_min_clusters') }}, true
        ) as is_few_clusters,
        cast(metric_rules.scale_min as double) as scale_min,
        cast(metric_rules.scale_max as double) as scale_max,
        with_interval.scoring_version
    from with_interval
    inner join sets
        on with_interval.set_id = sets.set_id
    left join metric_rules
        on
            with_interval.agent = metric_rules.agent
            and metric_rules.metric in (with_interval.metric, '*')
    -- the metric's own rule before the agent's '*' rule
    qualify row_number() over (
        partition by with_interval.set_id, with_interval.metric
        order by metric_rules.metric = '*'
    ) = 1

)

select * from final
