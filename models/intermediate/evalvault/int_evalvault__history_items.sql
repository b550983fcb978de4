{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per test case of
-- each EvalVault export, judged by its verdict (the scorer `overall`:
-- every metric reaches the run's threshold): query = the test case id,
-- round = 1 (EvalVault scores a test case once), so flips pair the same
-- test case across nights. Status: ok (EvalVault records no error or
-- status per test case; the JSON export carries no answers).
with

items as (

    select * from {{ ref('evalvault_item_scores') }}
    where scorer = 'overall'

),

final as (

    select
        'evalvault' as agent,
        set_id,
        file_sha256,
        line_number,
        sample_id as query_id,
        cast(epoch as varchar) as round,
        epoch as round_order,
        scorer as segment,
        'ok' as status,
        false as is_duplicate,
        cast(null as double) as accuracy_score,
        cast(null as double) as stability_score,
        latency_sec,
        cast(null as double) as latency_score,
        coalesce(input, sample_id) as query_text,
        completion as assistant_message,
        error as error_message,
        explanation as fail_detail,
        is_pass
    from items

)

select * from final
