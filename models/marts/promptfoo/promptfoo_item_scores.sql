{{ config(
    materialized='set_incremental',
    sets_model='int_promptfoo__output_sets',
) }}
-- One row per (set, sample, epoch, scorer) of the current promptfoo
-- outputs. A set is one column (provider x prompt); a sample is one test
-- (a hash of its vars and asserts), its repeats the epochs in testIdx
-- order. The scorer `overall` is the result's outcome (value its score,
-- pass its success); each assertion (gradingResult.componentResults) is a
-- scorer of its own, named by its metric, else its type, else `assertion`
-- (`#n` when a result has the name more than once). Only the sets to
-- build are read (unbuilt).
with

sets as (

    select * from {{ unbuilt(ref('int_promptfoo__output_sets')) }}

),

results as (

    select * from {{ unbuilt(ref('stg_promptfoo__results')) }}
    where
        reject_reason is null

),

current_results as (

    select
        results.* exclude (drop_date),  -- noqa: RF02
        sets.drop_date,
        row_number() over (
            partition by results.set_id, results.test_key
            order by results.test_idx nulls last, results.line_number
        ) as epoch
    from results
    inner join sets
        on
            results.set_id = sets.set_id
            and results.file_sha256 = sets.file_sha256

),

overall as (

    select
        set_id,
        line_number,
        'overall' as scorer,
        cast(null as varchar) as assertion_type,
        cast(null as varchar) as target,
        score as value,
        success as is_pass,
        case when failure_reason = 1 then error end as explanation
    from current_results

),

component_entries as (

    select
        set_id,
        line_number,
        unnest(json_transform(components_json, '["JSON"]')) as component,
        generate_subscripts(
            json_transform(components_json, '["JSON"]'), 1
        ) as component_order
    from current_results

),

components_named as (

    select
        set_id,
        line_number,
        component_order,
        coalesce(
            component ->> '$.metric', component ->> '$.type', 'assertion'
        ) as name,
        component ->> '$.type' as assertion_type,
        component ->> '$.value' as target,
        try_cast(component ->> '$.score' as double) as value,
        coalesce(try_cast(component ->> '$.pass' as boolean), false)
            as is_pass,
        component ->> '$.reason' as explanation
    from component_entries

),

components as (

    select
        set_id,
        line_number,
        case
            when
                count(*) over (partition by set_id, line_number, name) = 1
                then name
            else
                name || '#' || row_number() over (
                    partition by set_id, line_number, name
                    order by component_order
                )
        end as scorer,
        assertion_type,
        target,
        value,
        is_pass,
        explanation
    from components_named

),

item_scores as (

    select * from overall
    union all
    select * from components

),

final as (

    select
        item_scores.set_id,
        current_results.file_sha256,
        current_results.drop_date,
        current_results.line_number,
        current_results.test_key as sample_id,
        cast(current_results.epoch as integer) as epoch,
        item_scores.scorer,
        current_results.input,
        item_scores.target,
        current_results.output as answer,
        current_results.output as completion,
        cast(item_scores.value as varchar) as value_raw,
        item_scores.value,
        item_scores.is_pass,
        item_scores.explanation,
        case
            when current_results.failure_reason = 2
                then coalesce(current_results.error, 'error')
        end as error,
        current_results.latency_ms / 1000.0 as latency_sec,
        case
            when
                current_results.prompt_tokens is not null
                or current_results.grader_prompt_tokens is not null
                then
                    coalesce(current_results.prompt_tokens, 0)
                    + coalesce(current_results.grader_prompt_tokens, 0)
        end as input_tokens,
        case
            when
                current_results.completion_tokens is not null
                or current_results.grader_completion_tokens is not null
                then
                    coalesce(current_results.completion_tokens, 0)
                    + coalesce(current_results.grader_completion_tokens, 0)
        end as output_tokens,
        current_results.cost as total_cost,
        current_results.source_file,
        current_results.prompt_idx,
        current_results.test_idx,
        current_results.description,
        current_results.vars_json,
        current_results.failure_reason,
        item_scores.assertion_type,
        {{ scoring_version('promptfoo') }} as scoring_version
    from item_scores
    inner join current_results
        on
            item_scores.set_id = current_results.set_id
            and item_scores.line_number = current_results.line_number

)

select * from final
