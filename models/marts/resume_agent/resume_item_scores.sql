{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets() }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
-- One row per scored CSV record of the current version of each resume set.
with

items as (

    select * from {{ ref('int_resume_agent__items_labelled') }}

),

final as (

    select
        set_id,
        file_sha256,
        source_file,
        cast(drop_date as date) as drop_date,
        line_number,
        run_id,
        item_id,
        query_id,
        track,
        round,
        round_order,
        category,
        status,
        status_reason,
        is_pass,
        label_source,
        is_llm_score_invalid,
        llm_score_state,
        raw_json_valid,
        is_duplicate,
        intent_score,
        accuracy_score,
        stability_score,
        latency_sec,
        latency_rubric,
        latency_score,
        query_text,
        assistant_message,
        coalesce(nullif(trim(error_text), ''), raw_error_text) as error_message,
        llm_score_raw
    from items
    where {{ is_unbuilt_set('items.set_id', 'items.file_sha256') }}

)

select * from final
