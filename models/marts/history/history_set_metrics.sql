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
        'n_clusters', 'std_error', 'scoring_version', 'scale_min',
        'scale_max', 'is_proportion'
    ]) }}

),

-- the metric's rule (its own row before the agent's '*' row), and its
-- scale: the rule's when it declares one, else the one the agent's set
-- mart reports the figure within (an imported tool's scorer, whose scale
-- its data declares: lm-eval's accuracies, Every Eval Ever's min_score
-- and max_score, Inspect's accuracy)
with_interval as (

    select
        all_stats.set_id,
        all_stats.agent,
        all_stats.metric,
        all_stats.metric_value,
        all_stats.estimate,
        all_stats.n_obs,
        all_stats.n_clusters,
        all_stats.std_error,
        all_stats.scoring_version,
        metric_rules.metric as rule_metric,
        metric_rules.label_ko,
        metric_rules.metric_order,
        metric_rules.direction,
        metric_rules.min_delta,
        {{ t_critical_975('all_stats.n_clusters - 1') }} as t_critical,
        cast(
            case
                when
                    metric_rules.scale_min is not null
                    or metric_rules.scale_max is not null
                    then metric_rules.scale_min
                else all_stats.scale_min
            end as double
        ) as scale_min,
        cast(
            case
                when
                    metric_rules.scale_min is not null
                    or metric_rules.scale_max is not null
                    then metric_rules.scale_max
                else all_stats.scale_max
            end as double
        ) as scale_max,
        coalesce(metric_rules.is_proportion, false)
        or coalesce(all_stats.is_proportion, false) as is_proportion
    from all_stats
    left join metric_rules
        on
            all_stats.agent = metric_rules.agent
            and metric_rules.metric in (all_stats.metric, '*')
    qualify row_number() over (
        partition by all_stats.set_id, all_stats.metric
        order by metric_rules.metric = '*'
    ) = 1

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
            when with_interval.rule_metric = '*' then with_interval.metric
            else with_interval.label_ko
        end as metric_label,
        cast(with_interval.metric_order as integer) as metric_order,
        with_interval.direction,
        cast(with_interval.min_delta as double) as min_delta,
        with_interval.metric_value,
        with_interval.estimate,
        with_interval.n_obs,
        with_interval.n_clusters,
        with_interval.std_error,
        {{ interval_bound(
            'low', 'with_interval.metric_value', 'with_interval.std_error',
            'with_interval.t_critical', 'with_interval.n_obs',
            'with_interval.scale_min', 'with_interval.scale_max',
            'with_interval.is_proportion'
        ) }} as ci_low,
        {{ interval_bound(
            'high', 'with_interval.metric_value', 'with_interval.std_error',
            'with_interval.t_critical', 'with_interval.n_obs',
            'with_interval.scale_min', 'with_interval.scale_max',
            'with_interval.is_proportion'
        ) }} as ci_high,
        case
            when with_interval.std_error is null then 'none'
            when with_interval.is_proportion then 'wilson'
            else 'cluster_robust_t'
        end as ci_method,
        -- few clusters: an interval from them is not to be trusted as
        -- precise (the viewer and the pages say so instead of printing it)
        coalesce(
            with_interval.n_clusters < {{ var('ci_min_clusters') }}, true
        ) as is_few_clusters,
        with_interval.scale_min,
        with_interval.scale_max,
        with_interval.scoring_version
    from with_interval
    inner join sets
        on with_interval.set_id = sets.set_id

)

select * from final
