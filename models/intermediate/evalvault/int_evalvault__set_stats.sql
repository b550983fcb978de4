{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets() }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
-- One row per (EvalVault export, metric): the run's pass rate (the share
-- of test cases whose verdict, scorer overall, passes: EvalVault's
-- passed_test_cases / total_test_cases), each metric's mean score and
-- its pass rate (`pass_rate:<metric>`, the share of its scores that reach
-- the threshold: EvalVault's MetricsSummary), and the tokens per test
-- case, with n and the standard error (each test case its own cluster);
-- macros/history.sql. The run's cost (when its test cases record one) is
-- one value, with no interval.
with

items as (

    select * from {{ ref('evalvault_item_scores') }}
    where {{ is_unbuilt_set(kind='evalvault_run') }}

),

test_cases as (

    select * from items
    where scorer = 'overall'

),

observations as (

    select
        set_id,
        file_sha256,
        'pass_rate' as metric,
        'all' as group_key,
        sample_id as cluster_id,
        case when is_pass then 1.0 else 0.0 end as metric_value
    from test_cases

    union all

    select
        set_id,
        file_sha256,
        scorer as metric,
        'all' as group_key,
        sample_id as cluster_id,
        value as metric_value
    from items
    where scorer <> 'overall'

    union all

    select
        set_id,
        file_sha256,
        'pass_rate:' || scorer as metric,
        'all' as group_key,
        sample_id as cluster_id,
        case when is_pass then 1.0 else 0.0 end as metric_value
    from items
    where scorer <> 'overall'

    union all

    select
        set_id,
        file_sha256,
        'tokens_per_sample' as metric,
        'all' as group_key,
        sample_id as cluster_id,
        tokens_used as metric_value
    from test_cases
    where tokens_used is not null

    union all

    select
        set_id,
        file_sha256,
        'total_cost' as metric,
        'all' as group_key,
        'set' as cluster_id,
        sum(total_cost) as metric_value
    from test_cases
    group by set_id, file_sha256
    having count(total_cost) > 0

),

{{ cluster_mean_stats('observations') }},

final as (

    select
        set_id,
        file_sha256,
        'evalvault' as agent,
        metric,
        metric_value,
        n_obs,
        n_clusters,
        std_error,
        {{ scoring_version('evalvault') }} as scoring_version
    from metric_stats

)

select * from final
