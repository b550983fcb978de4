{{ config(materialized='ephemeral') }}
-- One row per (current EvalVault export, scorer, metric) EvalVault
-- reported: the run's pass rate (scorer overall: the Summary sheet's, or
-- the JSON's pass_rate), each metric's mean (the MetricsSummary sheet's
-- avg_score, or the JSON's avg_<metric>) and pass rate (MetricsSummary's
-- pass_rate; the JSON has none), with the count it is over (Summary's
-- total_test_cases, MetricsSummary's samples).
with

runs as (

    select * from {{ ref('int_evalvault__runs_current') }}

),

metric_entries as (

    select
        set_id,
        file_sha256,
        unnest(map_entries(json_transform(
            metrics_summary_json, '"MAP(VARCHAR, JSON)"'
        ))) as entry
    from runs
    where json_type(metrics_summary_json) = 'OBJECT'

),

final as (

    select
        set_id,
        file_sha256,
        'overall' as scorer,
        'pass_rate' as metric,
        reported_pass_rate as tool_reported_value,
        reported_total_test_cases as tool_reported_n
    from runs

    union all

    select
        set_id,
        file_sha256,
        entry.key as scorer,
        'mean' as metric,
        {{ json_finite_number("entry.value -> '$.avg_score'") }}
            as tool_reported_value,
        {{ json_bigint("entry.value -> '$.samples'") }} as tool_reported_n
    from metric_entries

    union all

    select
        set_id,
        file_sha256,
        entry.key as scorer,
        'pass_rate' as metric,
        {{ json_finite_number("entry.value -> '$.pass_rate'") }}
            as tool_reported_value,
        {{ json_bigint("entry.value -> '$.samples'") }} as tool_reported_n
    from metric_entries

)

select * from final
