{{ config(materialized='set_incremental', kind='evalvault_run') }}
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

    select * from {{ unbuilt(ref('evalvault_item_scores')) }}

),

test_cases as (

    select * from items
    where scorer = 'overall'

),

{% call imported_set_stats('evalvault') %}
    {{ set_observations(
        'test_cases', "'pass_rate'",
        'case when is_pass then 1.0 else 0.0 end'
    ) }}

    union all

    {{ set_observations(
        'items', 'scorer', 'value', where="scorer <> 'overall'"
    ) }}

    union all

    {{ set_observations(
        'items', "'pass_rate:' || scorer",
        'case when is_pass then 1.0 else 0.0 end',
        where="scorer <> 'overall'"
    ) }}

    union all

    {{ set_observations(
        'test_cases', "'tokens_per_sample'", 'tokens_used',
        where='tokens_used is not null'
    ) }}

    union all

    {{ set_cost_observations('test_cases') }}
{% endcall %},

final as (

    select * from set_stats

)

select * from final
