{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per scored CSV record of the current version of each resume set,
-- with round order and duplicate flags (SPEC 3.4) from
-- int_resume_agent__set_rounds and int_resume_agent__query_rounds.
-- Every read carries the literal filter of the sets to build (unbuilt),
-- so an incremental build reads those sets only. Only the (query, round)s
-- run more than once are joined, and by a left join: the hash table holds
-- the few repeated queries, not one row per item (joining every
-- (query, round) of a 10M-row set ran out of memory at the 1 GB budget).
with

items as (

    select * from {{ unbuilt(ref('int_resume_agent__items_labelled')) }}

),

repeated_query_rounds as (

    select * from {{ unbuilt(ref('int_resume_agent__query_rounds')) }}
    where n_lines > 1

),

set_rounds as (

    select * from {{ unbuilt(ref('int_resume_agent__set_rounds')) }}

),

final as (

    select
        items.set_id,
        items.file_sha256,
        items.source_file,
        cast(items.drop_date as date) as drop_date,
        items.line_number,
        items.run_id,
        items.item_id,
        items.query_id,
        items.track,
        items.round,
        set_rounds.round_order,
        items.category,
        items.status,
        items.status_reason,
        items.is_pass,
        items.label_source,
        items.is_llm_score_invalid,
        items.llm_score_state,
        items.raw_json_valid,
        coalesce(
            items.line_number > repeated_query_rounds.first_line_number, false
        ) as is_duplicate,
        items.intent_score,
        items.accuracy_score,
        items.stability_score,
        items.latency_sec,
        items.latency_rubric,
        items.latency_score,
        items.query_text,
        items.assistant_message,
        coalesce(nullif(trim(items.error_text), ''), items.raw_error_text)
            as error_message,
        items.llm_score_raw,
        items.expected_result,
        items.llm_comment,
        items.raw_json
    from items
    left join repeated_query_rounds
        on
            items.set_id = repeated_query_rounds.set_id
            and items.file_sha256 = repeated_query_rounds.file_sha256
            and items.query_id = repeated_query_rounds.query_id
            and items.round = repeated_query_rounds.round
    inner join set_rounds
        on
            items.set_id = set_rounds.set_id
            and items.file_sha256 = set_rounds.file_sha256
            and items.round = set_rounds.round

)

select * from final
