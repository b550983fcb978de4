{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per document of
-- each lm-eval set, judged by the set's headline scorer (the first
-- "<metric>,<filter>" of the task's results that lm-eval aggregates by
-- mean; pass: seed lm_eval_pass_rules): query = the document (doc_id),
-- round = 1 (lm-eval has one epoch), so flips pair the same document
-- across nights and runs. Status: empty when the model's answer is empty,
-- else ok (lm-eval records no error per document).
with

runs as (

    select * from {{ ref('lm_eval_runs') }}

),

items as (

    select * from {{ ref('lm_eval_item_scores') }}

),

headline_items as (

    select items.*
    from items
    inner join runs
        on
            items.set_id = runs.set_id
            and items.scorer = runs.headline_scorer

),

final as (

    select
        'lm_eval' as agent,
        set_id,
        file_sha256,
        line_number,
        sample_id as query_id,
        cast(epoch as varchar) as round,
        epoch as round_order,
        scorer as segment,
        case
            when coalesce(trim(answer), '') = '' then 'empty'
            else 'ok'
        end as status,
        false as is_duplicate,
        cast(null as double) as accuracy_score,
        cast(null as double) as stability_score,
        latency_sec,
        cast(null as double) as latency_score,
        input as query_text,
        completion as assistant_message,
        error as error_message,
        explanation as fail_detail,
        is_pass
    from headline_items

)

select * from final
