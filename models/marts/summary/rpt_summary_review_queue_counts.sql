-- One row per (dataset, metric, review reason) of the LLM review queue: the
-- boundary items waiting, judged and failed: the report's "LLM 보정 검토
-- 대상" table. A table, like the queue it counts (which follows judgments).
with

queue as (

    select * from {{ ref('summary_review_queue') }}

),

final as (

    select
        set_id,
        metric,
        review_reason,
        count(*) filter (where judge_status = 'pending') as n_pending,
        count(*) filter (where judge_status = 'judged') as n_judged,
        count(*) filter (where judge_status = 'failed') as n_failed
    from queue
    group by set_id, metric, review_reason

)

select * from final
