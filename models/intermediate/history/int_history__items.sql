-- One row per scored item of every registered agent that has items a pass
-- rule applies to (today resume and recruit; int_<agent>__history_items),
-- with the rule of seed history_pass_rules applied: the item passes when
-- its stability and accuracy scores reach the agent's minimums. A view:
-- readers filter by set.
with

all_items as (

    {{ agents_union('history_items', [
        'agent', 'set_id', 'file_sha256', 'line_number', 'query_id', 'round',
        'round_order', 'segment', 'status', 'is_duplicate', 'accuracy_score',
        'stability_score', 'latency_sec', 'latency_score', 'query_text',
        'assistant_message', 'error_message', 'fail_detail'
    ]) }}

),

pass_rules as (

    select * from {{ ref('history_pass_rules') }}

),

final as (

    select
        all_items.*,
        {{ passes_item_rule(
            'all_items.stability_score', 'all_items.accuracy_score', 'pass_rules'
        ) }} as is_pass
    from all_items
    inner join pass_rules
        on all_items.agent = pass_rules.agent

)

select * from final
