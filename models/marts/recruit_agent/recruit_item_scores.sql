{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets() }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
-- One row per scored JSONL line of the current version of each recruit set.
with

items as (

    select * from {{ ref('int_recruit_agent__items_scored') }}

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
        round,
        round_order,
        category,
        status,
        status_reason,
        raw_json_valid,
        error_message,
        intent_verdict,
        intent_verdict_state,
        intent_source,
        cast(intent_score as double) as intent_score,
        check_source,
        n_checks,
        n_checks_passed,
        n_checks_invalid,
        accuracy_ratio,
        accuracy_reason,
        cast(accuracy_score as double) as accuracy_score,
        intent_label,
        intent_label_source,
        intent_label_state,
        ui_signature,
        cast(n_data_ui as bigint) as n_data_ui,
        latency_class,
        latency_class_state,
        latency_source,
        latency_sec,
        latency_rubric,
        latency_score,
        cast(stability_score as double) as stability_score,
        query_text,
        assistant_message
    from items
    where {{ is_unbuilt_set(
        'items.set_id', 'items.file_sha256', kind='recruit_agent'
    ) }}

)

select * from final
