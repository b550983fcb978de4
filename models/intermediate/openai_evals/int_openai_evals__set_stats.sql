{{ config(materialized='set_incremental', kind='openai_evals_record') }}
-- One row per (OpenAI Evals run, metric): each scorer's mean over its
-- items (match: the share of match events recorded correct, evals'
-- get_accuracy; a metrics key: the mean of its numbers, evals' np.mean,
-- unscored values left out), and the tokens per sample (its sampling
-- events' usage summed), with n and the standard error clustered by
-- sample (a sample's several events are one cluster); macros/history.sql.
-- Whether the run finished (run_complete: 1 when the file has its final
-- report) is one value, with no interval.
with

runs as (

    select * from {{ unbuilt(ref('int_openai_evals__runs_current')) }}

),

items as (

    select * from {{ unbuilt(ref('openai_evals_item_scores')) }}

),

events as (

    select * from {{ unbuilt(ref('openai_evals_events')) }}
    where
        event_type = 'sampling'

),

sample_tokens as (

    select
        set_id,
        file_sha256,
        sample_id,
        sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0))
            as n_tokens
    from events
    where prompt_tokens is not null or completion_tokens is not null
    group by set_id, file_sha256, sample_id

),

{% call imported_set_stats('openai_evals') %}
    {{ set_observations(
        'items', 'scorer', 'value'
    ) }}

    union all

    {{ set_observations('sample_tokens', "'tokens_per_sample'", 'n_tokens') }}

    union all

    -- 1 when the run finished (its final report): a gate can require it
    {{ set_observations(
        'runs', "'run_complete'",
        'case when is_complete then 1.0 else 0.0 end', cluster_id="'set'"
    ) }}
{% endcall %},

final as (

    select * from set_stats

)

select * from final
