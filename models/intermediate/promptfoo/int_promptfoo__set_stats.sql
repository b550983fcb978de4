{{ config(
    materialized='set_incremental',
    sets_model='int_promptfoo__output_sets',
) }}
-- One row per (promptfoo set, metric): the pass rate (the share of results
-- that succeeded, as promptfoo counts tests: every repeat is one), each
-- scorer's mean value over the results that carry it (`overall`: the
-- result's score), and the tokens per result, with n and the standard
-- error clustered by sample (the repeats of one test are one cluster);
-- macros/history.sql. The cost of the set (when its results record one)
-- is one value, with no interval.
with

items as (

    select * from {{ unbuilt(ref('promptfoo_item_scores')) }}

),

results as (

    select * from items
    where scorer = 'overall'

),

{% call imported_set_stats('promptfoo') %}
    {{ set_observations(
        'results', "'pass_rate'",
        'case when is_pass then 1.0 else 0.0 end'
    ) }}

    union all

    {{ set_observations('items', 'scorer', 'value') }}

    union all

    {{ set_observations(
        'results', "'tokens_per_sample'",
        'coalesce(input_tokens, 0) + coalesce(output_tokens, 0)',
        where='input_tokens is not null or output_tokens is not null'
    ) }}

    union all

    {{ set_cost_observations('results') }}
{% endcall %},

final as (

    select * from set_stats

)

select * from final
