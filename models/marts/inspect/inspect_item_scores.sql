{{ config(materialized='set_incremental', kind='inspect_log') }}
-- One row per (sample, epoch, scorer) of the current version of each
-- Inspect AI log: the value as the log wrote it and as Inspect's
-- value_to_float reads it (macro inspect_value_to_float); a dict-valued
-- score is one scorer row per key (`scorer.key`). A sample that errored
-- (no scores) has a row for every scorer of its log, value null and its
-- error: it is in the log and stays visible (records = scored +
-- rejected). Only the sets to build are
-- read (unbuilt).
with

logs as (

    select * from {{ unbuilt(ref('int_inspect__logs_current')) }}

),

samples as (

    select * from {{ unbuilt(
        ref('stg_inspect__samples'), set_column='source_file'
    ) }}
    where
        reject_reason is null

),

pass_rules as (

    select * from {{ ref('inspect_pass_rules') }}

),

current_samples as (

    select
        logs.set_id,
        samples.*
    from samples
    inner join logs
        on
            samples.source_file = logs.set_id
            and samples.file_sha256 = logs.file_sha256

),

score_entries as (

    select
        current_samples.set_id,
        current_samples.file_sha256,
        current_samples.line_number,
        unnest(map_entries(json_transform(
            current_samples.scores_json, '"MAP(VARCHAR, JSON)"'
        ))) as score_entry
    from current_samples

),

scores as (

    select
        score_entries.set_id,
        score_entries.file_sha256,
        score_entries.line_number,
        score_entries.score_entry.key as scorer_name,
        score_entries.score_entry.value -> '$.value' as value_json,
        score_entries.score_entry.value ->> '$.answer' as scorer_answer,
        score_entries.score_entry.value ->> '$.explanation' as explanation
    from score_entries

),

plain_scores as (

    select
        set_id,
        file_sha256,
        line_number,
        scorer_name as scorer,
        value_json,
        scorer_answer,
        explanation
    from scores
    where coalesce(json_type(value_json), 'NULL') <> 'OBJECT'

),

dict_entries as (

    select
        set_id,
        file_sha256,
        line_number,
        scorer_name,
        scorer_answer,
        explanation,
        unnest(map_entries(json_transform(
            value_json, '"MAP(VARCHAR, JSON)"'
        ))) as part
    from scores
    where json_type(value_json) = 'OBJECT'

),

dict_scores as (

    select
        dict_entries.set_id,
        dict_entries.file_sha256,
        dict_entries.line_number,
        dict_entries.scorer_name || '.' || dict_entries.part.key as scorer,
        dict_entries.part.value as value_json,
        dict_entries.scorer_answer,
        dict_entries.explanation
    from dict_entries

),

all_scores as (

    select * from plain_scores
    union all
    select * from dict_scores

),

set_scorers as (

    select distinct
        set_id,
        scorer
    from all_scores

),

unscored_samples as (

    -- a sample with no score (it errored): one row per scorer of its log
    -- (`(no score)` in a log that has none)
    select
        current_samples.set_id,
        current_samples.file_sha256,
        current_samples.line_number,
        coalesce(set_scorers.scorer, '(no score)') as scorer,
        cast(null as json) as value_json,
        cast(null as varchar) as scorer_answer,
        cast(null as varchar) as explanation
    from current_samples
    left join set_scorers
        on current_samples.set_id = set_scorers.set_id
    where
        not exists (
            select 1
            from all_scores
            where
                all_scores.set_id = current_samples.set_id
                and all_scores.line_number = current_samples.line_number
        )

),

item_scores as (

    select * from all_scores
    union all
    select * from unscored_samples

),

usage_entries as (

    select
        set_id,
        line_number,
        unnest(map_values(json_transform(
            model_usage_json, '"MAP(VARCHAR, JSON)"'
        ))) as model_usage
    from current_samples

),

sample_tokens as (

    select
        set_id,
        line_number,
        sum(try_cast(model_usage ->> '$.input_tokens' as bigint))
            as input_tokens,
        sum(try_cast(model_usage ->> '$.output_tokens' as bigint))
            as output_tokens,
        sum(try_cast(model_usage ->> '$.total_cost' as double)) as total_cost
    from usage_entries
    group by set_id, line_number

),

valued as (

    select
        item_scores.*,
        case
            when json_type(item_scores.value_json) = 'VARCHAR'
                then item_scores.value_json ->> '$'
            else cast(item_scores.value_json as varchar)
        end as value_raw,
        {{ inspect_value_to_float('item_scores.value_json') }} as value
    from item_scores

),

final as (

    select
        valued.set_id,
        valued.file_sha256,
        logs.drop_date,
        current_samples.line_number,
        current_samples.member,
        current_samples.sample_id,
        current_samples.epoch,
        valued.scorer,
        current_samples.input,
        current_samples.target,
        coalesce(valued.scorer_answer, current_samples.answer) as answer,
        current_samples.answer as completion,
        valued.value_raw,
        valued.value,
        coalesce(
            valued.value >= coalesce(own_rule.min_value, any_rule.min_value),
            false
        ) as is_pass,
        valued.explanation,
        current_samples.error,
        current_samples.total_time_sec as latency_sec,
        current_samples.working_time_sec,
        cast(sample_tokens.input_tokens as bigint) as input_tokens,
        cast(sample_tokens.output_tokens as bigint) as output_tokens,
        sample_tokens.total_cost,
        {{ scoring_version('inspect') }} as scoring_version
    from valued
    inner join current_samples
        on
            valued.set_id = current_samples.set_id
            and valued.line_number = current_samples.line_number
    inner join logs
        on valued.set_id = logs.set_id
    left join sample_tokens
        on
            valued.set_id = sample_tokens.set_id
            and valued.line_number = sample_tokens.line_number
    left join pass_rules as own_rule
        on valued.scorer = own_rule.scorer
    left join pass_rules as any_rule
        on any_rule.scorer = '*'

)

select * from final
