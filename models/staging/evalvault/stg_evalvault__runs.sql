-- One row per loaded EvalVault run export version (all versions;
-- intermediate keeps the current ones): the run's fields typed, its
-- metrics and thresholds, and the figures EvalVault reported (the Summary
-- sheet or the JSON's pass rate and counts, each metric's mean and pass
-- rate) kept beside them.
with

raw_runs as (

    select * from {{ ref('raw_evalvault_runs') }}

),

parsed as (

    select
        source_file,
        sha256,
        loaded_at,
        -- matched in NFC (macro nfc): dataset and model names are labels
        case
            when json_valid(header_json) then {{ nfc('header_json') }}::json
        end as run_header
    from raw_runs

),

final as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        ---------- the run
        'evalvault' as tool,
        run_header ->> '$.format' as export_format,
        run_header ->> '$.run.run_id' as run_id,
        run_header ->> '$.run.dataset_name' as dataset_name,
        run_header ->> '$.run.dataset_version' as dataset_version,
        run_header ->> '$.run.model_name' as model_name,
        try_cast(run_header ->> '$.run.started_at' as timestamptz)
            as started_at,
        try_cast(run_header ->> '$.run.finished_at' as timestamptz)
            as finished_at,
        run_header -> '$.metrics_evaluated' as metrics_evaluated_json,
        run_header -> '$.thresholds' as thresholds_json,
        ---------- what EvalVault reported
        {{ json_finite_number("run_header -> '$.summary.pass_rate'") }}
            as reported_pass_rate,
        {{ json_bigint("run_header -> '$.summary.total_test_cases'") }}
            as reported_total_test_cases,
        {{ json_bigint("run_header -> '$.summary.passed_test_cases'") }}
            as reported_passed_test_cases,
        {{ json_bigint("run_header -> '$.summary.total_tokens'") }}
            as reported_total_tokens,
        {{ json_finite_number("run_header -> '$.summary.total_cost_usd'") }}
            as reported_total_cost,
        run_header -> '$.metrics_summary' as metrics_summary_json
    from parsed

)

select * from final
