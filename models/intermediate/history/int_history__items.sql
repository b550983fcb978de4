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

recruit_checks as (

    select * from {{ ref('recruit_check_results') }}

),

-- the first failing accuracy check of a recruit item, as the reason an
-- item whose status is ok / partial still fails the pass rule
first_failed_checks as (

    select
        set_id,
        file_sha256,
        line_number,
        arg_min(
            coalesce(check_name, check_path, 'check ' || check_seq)
            || ': ' || reason,
            check_seq
        ) as failed_check
    from recruit_checks
    where not is_passed
    group by set_id, file_sha256, line_number

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
        error_message,
        status_reason as fail_detail
    from resume_items

    union all

    select
        'recruit_agent' as agent,
        recruit_items.set_id,
        recruit_items.file_sha256,
        recruit_items.line_number,
        recruit_items.query_id,
        recruit_items.round,
        recruit_items.round_order,
        recruit_items.latency_class as segment,
        recruit_items.status,
        false as is_duplicate,
        recruit_items.accuracy_score,
        recruit_items.stability_score,
        recruit_items.latency_sec,
        recruit_items.latency_score,
        recruit_items.query_text,
        recruit_items.assistant_message,
        recruit_items.error_message,
        coalesce(
            first_failed_checks.failed_check,
            recruit_items.accuracy_reason,
            recruit_items.status_reason
        ) as fail_detail
    from recruit_items
    left join first_failed_checks
        on
            recruit_items.set_id = first_failed_checks.set_id
            and recruit_items.file_sha256 = first_failed_checks.file_sha256
            and recruit_items.line_number = first_failed_checks.line_number

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
