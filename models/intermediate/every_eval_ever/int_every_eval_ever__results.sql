-- One row per evaluation result of each current Every Eval Ever aggregate:
-- the result as the reader named it (scorer: its evaluation_result_id, else
-- its evaluation_name; metric: its metric's name), its history metric
-- (the scorer, or `scorer.metric` when the aggregate has several results
-- of one scorer) and every figure the file reports for it (the score,
-- standard error, interval, samples). A view: the set marts read it.
with

aggregates as (

    select * from {{ ref('int_every_eval_ever__aggregates_current') }}

),

entries as (

    select
        set_id,
        file_sha256,
        unnest(json_transform(results_json, '["JSON"]')) as result
    from aggregates

),

typed as (

    select
        set_id,
        file_sha256,
        cast(result ->> '$.index' as integer) as result_index,
        result ->> '$.scorer' as scorer,
        result ->> '$.metric' as metric,
        result ->> '$.evaluation_name' as evaluation_name,
        result ->> '$.evaluation_result_id' as evaluation_result_id,
        result ->> '$.dataset_name' as dataset_name,
        result ->> '$.metric_id' as metric_id,
        result ->> '$.metric_kind' as metric_kind,
        result ->> '$.metric_unit' as metric_unit,
        result ->> '$.evaluation_description' as evaluation_description,
        try_cast(result ->> '$.lower_is_better' as boolean) as lower_is_better,
        result ->> '$.score_type' as score_type,
        -- a number, or the schema's "Infinity" / "-Infinity"
        try_cast(result ->> '$.min_score' as double) as min_score,
        try_cast(result ->> '$.max_score' as double) as max_score,
        {{ json_finite_number("result -> '$.score'") }} as tool_reported_value,
        {{ json_finite_number("result -> '$.standard_error'") }}
            as tool_std_error,
        result ->> '$.standard_error_method' as tool_std_error_method,
        {{ json_finite_number("result -> '$.ci_lower'") }} as tool_ci_low,
        {{ json_finite_number("result -> '$.ci_upper'") }} as tool_ci_high,
        {{ json_finite_number("result -> '$.confidence_level'") }}
            as tool_confidence_level,
        result ->> '$.ci_method' as tool_ci_method,
        {{ json_finite_number("result -> '$.standard_deviation'") }}
            as tool_std_dev,
        try_cast(result ->> '$.num_samples' as bigint) as tool_num_samples
    from entries

),

final as (

    select
        *,
        case
            when count(*) over (partition by set_id, scorer) = 1 then scorer
            else scorer || '.' || metric
        end as history_metric
    from typed

)

select * from final
