{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per result of
-- each promptfoo set, judged by its outcome (the scorer `overall`: pass =
-- promptfoo's success): query = the test (a hash of its vars and
-- asserts), round = its repeat, so flips pair the same test and repeat
-- across nights and pass@k / pass^k count a test's repeats. Status: error
-- (the provider failed: failureReason 2), empty (no output), ok.
with

items as (

    select * from {{ ref('promptfoo_item_scores') }}
    where scorer = 'overall'

),

final as (

    select
        'promptfoo' as agent,
        set_id,
        file_sha256,
        line_number,
        sample_id as query_id,
        cast(epoch as varchar) as round,
        epoch as round_order,
        scorer as segment,
        case
            when error is not null then 'error'
            when coalesce(trim(completion), '') = '' then 'empty'
            else 'ok'
        end as status,
        false as is_duplicate,
        cast(null as double) as accuracy_score,
        cast(null as double) as stability_score,
        latency_sec,
        cast(null as double) as latency_score,
        coalesce(description || ': ', '') || input as query_text,
        completion as assistant_message,
        error as error_message,
        explanation as fail_detail,
        is_pass
    from items

)

select * from final
