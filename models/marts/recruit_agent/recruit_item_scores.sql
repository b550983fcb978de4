{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per scored JSONL line of the current version of each recruit set.
with

items as (

    select * from {{ unbuilt(ref('int_recruit_agent__items_scored')) }}

),

pass_rules as (

    select * from {{ ref('history_pass_rules') }}
    where agent = 'recruit_agent'

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
        items.round,
        items.round_order,
        items.category,
        items.status,
        items.status_reason,
        items.raw_json_valid,
        items.error_message,
        items.intent_verdict,
        items.intent_verdict_state,
        items.intent_source,
        cast(items.intent_score as double) as intent_score,
        items.check_source,
        items.n_checks,
        items.n_checks_passed,
        items.n_checks_invalid,
        items.accuracy_ratio,
        items.accuracy_reason,
        cast(items.accuracy_score as double) as accuracy_score,
        items.intent_label,
        items.intent_label_source,
        items.intent_label_state,
        items.ui_signature,
        cast(items.n_data_ui as bigint) as n_data_ui,
        items.latency_class,
        items.latency_class_state,
        items.latency_source,
        items.latency_sec,
        items.latency_rubric,
        items.latency_score,
        cast(items.stability_score as double) as stability_score,
        {{ passes_item_rule(
            'items.stability_score', 'items.accuracy_score', 'pass_rules'
        ) }} as is_pass,
        items.query_text,
        items.expected_result,
        items.assistant_message,
        items.raw_json
    from items
    left join pass_rules on true

)

select * from final
