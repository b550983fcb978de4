-- One row per scorable line of the current version of each recruit set:
-- the staging fields plus the item status of SPEC 3.2 (reused by 4.2 for
-- the intent fallback, stability and intent_label) and the round order.
-- Rejected lines are not here (see ops.rejected_rows).
with

items as (

    select * from {{ ref('stg_recruit_agent__items') }}

),

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

current_items as (

    select
        current_sets.set_id,
        items.*,
        -- a missing round is one round of its own, '-' (sorted last)
        coalesce(nullif(items.round_raw, ''), '-') as round
    from items
    inner join current_sets
        on
            items.source_file = current_sets.set_id
            and items.file_sha256 = current_sets.file_sha256
    where items.reject_reason is null

),

labelled as (

    select
        *,
        {{ status_reason(
            'item_error_text', 'raw_json_state', 'has_raw_error',
            'assistant_message', 'n_data_ui'
        ) }} as status_reason_common
    from current_items

),

final as (

    select
        set_id,
        source_file,
        file_sha256,
        line_number,
        loaded_at,
        drop_date,
        run_id,
        item_id,
        query_id,
        round_raw,
        round,
        query_text,
        expected_result,
        category,
        latency_class_raw,
        intent_verdict_raw,
        intent_label_raw,
        accuracy_checks_json,
        has_item_error,
        item_error_text,
        latency_ms,
        raw_json,
        raw_json_state,
        raw_json_valid,
        assistant_message,
        data_ui_list_json,
        n_data_ui,
        response_time_sec,
        has_raw_error,
        raw_error_text,
        -- the common macro names the first error source after the resume
        -- CSV's 오류 column; here it is the item's `error` field
        case status_reason_common
            when 'error_column' then 'item_error'
            else status_reason_common
        end as status_reason,
        {{ status_from_reason('status_reason_common') }} as status,
        dense_rank() over (
            partition by set_id
            order by {{ round_sort_key('round') }}, round
        ) as round_order
    from labelled

)

select * from final
