-- One row per record of every loaded EvalVault run export version: a test
-- case (record_type test_case: a TestCases row, a `results` entry) or a
-- score (record_type score: a MetricScores row, a `metrics` entry), the
-- fields typed, and why a record cannot be scored (reject_reason, from
-- the reader). A rejected score keeps its test case and metric: the test
-- case it belongs to does not pass.
with

raw_records as (

    select * from {{ ref('raw_evalvault_records') }}

),

records as (

    select
        *,
        -- matched in NFC (macro nfc); raw_text keeps what was delivered
        case
            when json_valid(record_json) then {{ nfc('record_json') }}::json
        end as rec
    from raw_records

),

final as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        line_number,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        reject_reason,
        raw_text,
        ---------- the record
        source_file as set_id,
        rec ->> '$.record' as record_type,
        rec ->> '$.where' as record_location,
        rec ->> '$.test_case_id' as test_case_id,
        rec ->> '$.result_id' as result_id,
        ---------- a score
        rec ->> '$.metric_name' as metric_name,
        {{ json_finite_number("rec -> '$.score'") }} as score,
        rec ->> '$.score_raw' as score_raw,
        {{ json_finite_number("rec -> '$.threshold'") }} as score_threshold,
        rec ->> '$.reason' as reason,
        try_cast(rec ->> '$.passed' as boolean) as tool_passed,
        ---------- a test case
        try_cast(rec ->> '$.all_passed' as boolean) as tool_all_passed,
        -- a count a bigint holds; null past it, as any other odd value
        try_cast(
            {{ json_nonneg_number("rec -> '$.tokens_used'") }} as bigint
        ) as tokens_used,
        {{ json_nonneg_number("rec -> '$.latency_ms'") }} as latency_ms,
        {{ json_nonneg_number("rec -> '$.cost_usd'") }} as cost_usd,
        rec ->> '$.trace_id' as trace_id,
        rec ->> '$.started_at' as case_started_at,
        rec ->> '$.finished_at' as case_finished_at,
        rec ->> '$.question' as question,
        rec ->> '$.answer' as answer,
        rec ->> '$.contexts' as contexts_json,
        rec ->> '$.ground_truth' as ground_truth
    from records

)

select * from final
