-- One row per scored item of the resume and recruit agents with the pass
-- rule of seed history_pass_rules (the item passes when its stability and
-- accuracy scores reach the agent's minimums) and the fields that flips,
-- repeats and latency percentiles need. A view: readers filter by set.
with

resume_items as (

    select * from {{ ref('resume_item_scores') }}

),

recruit_items as (

    select * from {{ ref('recruit_item_scores') }}

),

pass_rules as (

    select * from {{ ref('history_pass_rules') }}

),

all_items as (

    select
        'resume_agent' as agent,
        set_id,
        file_sha256,
        line_number,
        query_id,
        round,
        round_order,
        'track_' || track as segment,
        status,
        is_duplicate,
        accuracy_score,
        stability_score,
        latency_sec,
        latency_score,
        query_text,
        assistant_message,
        error_message
    from resume_items

    union all

    select
        'recruit_agent' as agent,
        set_id,
        file_sha256,
        line_number,
        query_id,
        round,
        round_order,
        latency_class as segment,
        status,
        false as is_duplicate,
        accuracy_score,
        stability_score,
        latency_sec,
        latency_score,
        query_text,
        assistant_message,
        error_message
    from recruit_items

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
