{{ config(
    materialized='set_incremental',
    sets_model='int_lm_eval__task_sets',
    version_column='set_version',
    built_version_column='file_sha256',
) }}
-- One row per (set, document, scorer) of the current lm-eval outputs. A set
-- is a results file's task; a sample is a document (doc_id; lm-eval has
-- one epoch); a scorer is "<metric>,<filter>", named as lm-eval names the
-- figure in results (acc,none; exact_match,strict-match): each line of the
-- samples file is one document under one filter, with one value per
-- metric. value is the number lm-eval wrote for the document; a corpus
-- metric's item (bleu's [reference, prediction]) has none (value_raw keeps
-- it). The pass verdict (seed lm_eval_pass_rules) applies to the metrics
-- lm-eval aggregates by mean. Only the sets to build are read.
with

sets as (

    select * from {{ unbuilt(ref('int_lm_eval__task_sets'), 'set_version') }}

),

samples as (

    select * from {{ ref('stg_lm_eval__samples') }}
    where
        reject_reason is null
        and {{ lm_eval_in_unbuilt_sets('samples') }}

),

default_aggregations as (

    select * from {{ ref('lm_eval_metric_aggregations') }}

),

pass_rules as (

    select * from {{ ref('lm_eval_pass_rules') }}

),

current_samples as (

    select
        sets.set_id,
        sets.file_sha256,
        sets.drop_date,
        sets.output_type,
        sets.aggregations_json,
        samples.* exclude (drop_date, file_sha256),  -- noqa: RF02
        samples.file_sha256 as samples_sha256,
        -- a loglikelihood request answers with [log-likelihood, is greedy]
        -- per continuation: the model's choice is the likeliest (acc's)
        list_transform(
            json_transform(samples.filtered_resps_json, '["JSON"]'),
            lambda pair: try_cast(pair ->> '$[0]' as double)  -- noqa: RF02
        ) as log_likelihoods
    from samples
    inner join sets
        on
            samples.source_file = sets.samples_file
            and samples.file_sha256 = sets.samples_sha256

),

answered as (

    select
        *,
        case
            when output_type in ('multiple_choice', 'loglikelihood')
                then
                    json_transform(continuations_json, '["VARCHAR"]')[
                        list_position(
                            log_likelihoods, list_max(log_likelihoods)
                        )
                    ]
            when json_type(filtered_resps_json -> '$[0]') = 'VARCHAR'
                then filtered_resps_json ->> '$[0]'
            else cast(filtered_resps_json -> '$[0]' as varchar)
        end as answer,
        case
            when output_type in ('multiple_choice', 'loglikelihood')
                then null
            when json_type(resps_json -> '$[0][0]') = 'VARCHAR'
                then resps_json ->> '$[0][0]'
            else cast(resps_json -> '$[0]' as varchar)
        end as generation
    from current_samples

),

metric_entries as (

    select
        set_id,
        line_number,
        unnest(map_entries(
            json_transform(metrics_json, '"MAP(VARCHAR, JSON)"')
        )) as entry
    from answered

),

metric_values as (

    select
        metric_entries.set_id,
        metric_entries.line_number,
        metric_entries.entry.key as metric_name,
        cast(metric_entries.entry.value as varchar) as value_raw,
        {{ json_finite_number('metric_entries.entry.value') }} as value
    from metric_entries

),

item_scores as (

    select
        answered.*,
        metric_values.metric_name,
        metric_values.metric_name || ',' || answered.filter_name as scorer,
        metric_values.value_raw,
        metric_values.value,
        coalesce(
            answered.aggregations_json
            ->> ('$."' || metric_values.metric_name || '"'),
            default_aggregations.aggregation,
            'mean'
        ) as aggregation
    from metric_values
    inner join answered
        on
            metric_values.set_id = answered.set_id
            and metric_values.line_number = answered.line_number
    left join default_aggregations
        on metric_values.metric_name = default_aggregations.metric

),

judged as (

    select
        item_scores.*,
        case
            when
                item_scores.aggregation = 'mean'
                and item_scores.value is not null
                then
                    item_scores.value
                    >= coalesce(own.min_value, every_metric.min_value)
        end as is_pass
    from item_scores
    left join pass_rules as own
        on item_scores.metric_name = own.metric
    left join pass_rules as every_metric
        on every_metric.metric = '*'

),

final as (

    select
        set_id,
        file_sha256,
        drop_date,
        cast(line_number as bigint) as line_number,
        cast(doc_id as varchar) as sample_id,
        cast(1 as integer) as epoch,
        scorer,
        input,
        target,
        answer,
        coalesce(generation, answer) as completion,
        value_raw,
        value,
        is_pass,
        cast(null as varchar) as explanation,
        cast(null as varchar) as error,
        cast(null as double) as latency_sec,
        cast(null as bigint) as input_tokens,
        cast(null as bigint) as output_tokens,
        cast(null as double) as total_cost,
        cast(doc_id as bigint) as doc_id,
        filter_name,
        metric_name,
        aggregation,
        source_file as samples_file,
        samples_sha256,
        doc_hash,
        prompt_hash,
        target_hash,
        {{ scoring_version('lm_eval') }} as scoring_version
    from judged

)

select * from final
