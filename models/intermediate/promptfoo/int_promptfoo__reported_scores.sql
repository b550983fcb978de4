{{ config(materialized='ephemeral') }}
-- One row per (promptfoo set, scorer, metric) promptfoo reports for the
-- set's column (results.prompts[promptIdx].metrics; table.head.prompts of
-- version 2): the pass rate (testPassCount over the tests: passed, failed
-- and errored), the mean score (metrics.score is the sum of the results'
-- scores) and each named metric's mean (namedScores over
-- namedScoresCount). A .jsonl output reports none.
with

sets as (

    select
        set_id,
        file_sha256,
        cast(reported_metrics_json as json) as metrics
    from {{ ref('int_promptfoo__output_sets') }}
    where reported_metrics_json is not null

),

counts as (

    select
        set_id,
        file_sha256,
        metrics,
        coalesce(try_cast(metrics ->> '$.testPassCount' as double), 0)
        + coalesce(try_cast(metrics ->> '$.testFailCount' as double), 0)
        + coalesce(try_cast(metrics ->> '$.testErrorCount' as double), 0)
            as n_tests
    from sets

),

named as (

    select
        set_id,
        file_sha256,
        unnest(map_entries(json_transform(
            metrics -> '$.namedScores', '"MAP(VARCHAR, DOUBLE)"'
        ))) as entry,
        json_transform(
            metrics -> '$.namedScoresCount', '"MAP(VARCHAR, DOUBLE)"'
        ) as named_counts
    from counts

),

final as (

    select
        set_id,
        file_sha256,
        'overall' as scorer,
        'pass_rate' as metric,
        try_cast(metrics ->> '$.testPassCount' as double)
        / nullif(n_tests, 0) as tool_reported_value
    from counts

    union all

    select
        set_id,
        file_sha256,
        'overall' as scorer,
        'mean' as metric,
        try_cast(metrics ->> '$.score' as double)
        / nullif(n_tests, 0) as tool_reported_value
    from counts

    union all

    select
        set_id,
        file_sha256,
        entry.key as scorer,
        'mean' as metric,
        entry.value / nullif(named_counts[entry.key], 0) as tool_reported_value
    from named

)

select * from final
