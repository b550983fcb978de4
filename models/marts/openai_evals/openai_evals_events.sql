{{ config(materialized='set_incremental', kind='openai_evals_record') }}
-- One row per usable event of the current version of each OpenAI Evals
-- record file (one run, one set): its id, sample, type and data, and what
-- the warehouse reads from it (a sampling event's prompt, answer and token
-- usage; a match event's verdict). Every event of the file is here or in
-- ops.rejected_rows (records = events here + rejected). Only the sets to
-- build are read (unbuilt).
with

runs as (

    select * from {{ unbuilt(ref('int_openai_evals__runs_current')) }}

),

events as (

    select * from {{ unbuilt(
        ref('stg_openai_evals__events'), set_column='source_file'
    ) }}
    where
        reject_reason is null

),

current_events as (

    select
        runs.set_id,
        runs.drop_date,
        events.* exclude (drop_date)  -- noqa: RF02
    from events
    inner join runs
        on
            events.source_file = runs.set_id
            and events.file_sha256 = runs.file_sha256

),

final as (

    select
        set_id,
        file_sha256,
        drop_date,
        line_number,
        event_id,
        sample_id,
        event_type,
        created_at,
        cast(data_json as varchar) as data_json,
        case
            when event_type = 'match'
                then try_cast(data_json ->> '$.correct' as boolean)
        end as is_correct,
        case
            when event_type = 'sampling'
                then try_cast(data_json ->> '$.usage.prompt_tokens' as bigint)
        end as prompt_tokens,
        case
            when event_type = 'sampling'
                then try_cast(
                    data_json ->> '$.usage.completion_tokens' as bigint
                )
        end as completion_tokens,
        case
            when event_type = 'sampling'
                then try_cast(data_json ->> '$.usage.total_tokens' as bigint)
        end as total_tokens,
        {{ scoring_version('openai_evals') }} as scoring_version
    from current_events

)

select * from final
