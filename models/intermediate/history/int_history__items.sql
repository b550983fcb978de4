-- One row per scored item of every registered agent that has items
-- (int_<agent>__history_items; the registry's has_items), each with its
-- agent's pass verdict: the agent applies its own rule (resume and recruit
-- the seed history_pass_rules, an imported tool its scorer's value). A
-- view: readers filter by set.
with

all_items as (

    {{ agents_union('history_items', [
        'agent', 'set_id', 'file_sha256', 'line_number', 'query_id', 'round',
        'round_order', 'segment', 'status', 'is_duplicate', 'accuracy_score',
        'stability_score', 'latency_sec', 'latency_score', 'query_text',
        'assistant_message', 'error_message', 'fail_detail', 'is_pass'
    ]) }}

),

final as (

    select * from all_items

)

select * from final
