{{ config(materialized='set_incremental', kind='evalvault_run') }}
-- One row per (set, test case, scorer) of the current version of each
-- EvalVault run export (epoch 1: EvalVault scores a test case once). A
-- metric's row is its score, judged by the run's threshold for the metric
-- (the Run sheet's or the JSON's thresholds; else the score's own): pass
-- when the score reaches it (>=), as EvalVault's MetricScore.passed. The
-- scorer `overall` is the test case's verdict: pass when every metric
-- passes (EvalVault's all_passed; a test case without scores passes, as
-- all() of nothing) and none of its scores was rejected (a NaN or text
-- score does not reach a threshold). EvalVault's own verdict, where the
-- export has one (the JSON's passed / all_passed), is tool_is_pass beside
-- it. Only the sets to build are read (unbuilt).
with

runs as (

    select * from {{ unbuilt(ref('int_evalvault__runs_current')) }}

),

records as (

    select * from {{ unbuilt(
        ref('stg_evalvault__records'), set_column='source_file'
    ) }}

),

current_records as (

    select records.*
    from records
    inner join runs
        on
            records.set_id = runs.set_id
            and records.file_sha256 = runs.file_sha256

),

test_cases as (

    select * from current_records
    where record_type = 'test_case' and reject_reason is null

),

scores as (

    select * from current_records
    where record_type = 'score' and reject_reason is null

),

unscored as (

    -- a rejected score of a test case (not a repeat of a scored one): the
    -- test case cannot be shown to pass that metric
    select
        set_id,
        test_case_id,
        count(*) as n_rejected_scores,
        string_agg(
            coalesce(metric_name, '?'), ', ' order by line_number
        ) as rejected_metrics
    from current_records
    where
        record_type = 'score'
        and reject_reason is not null
        and split_part(reject_reason, ':', 1) <> 'duplicate_score'
        and test_case_id is not null
    group by set_id, test_case_id

),

threshold_entries as (

    select
        set_id,
        unnest(map_entries(json_transform(
            thresholds_json, '"MAP(VARCHAR, JSON)"'
        ))) as entry
    from runs
    where json_type(thresholds_json) = 'OBJECT'

),

run_thresholds as (

    select
        threshold_entries.set_id,
        threshold_entries.entry.key as metric_name,
        {{ json_finite_number('threshold_entries.entry.value') }} as threshold
    from threshold_entries

),

judged_scores as (

    select
        scores.set_id,
        scores.test_case_id,
        scores.line_number,
        scores.metric_name,
        scores.score,
        scores.score_raw,
        scores.score_threshold,
        coalesce(run_thresholds.threshold, scores.score_threshold)
            as threshold,
        coalesce(
            scores.score
            >= coalesce(run_thresholds.threshold, scores.score_threshold),
            false
        ) as is_pass,
        scores.reason,
        scores.tool_passed,
        scores.record_location
    from scores
    left join run_thresholds
        on
            scores.set_id = run_thresholds.set_id
            and scores.metric_name = run_thresholds.metric_name

),

case_verdicts as (

    select
        set_id,
        test_case_id,
        count(*) as n_scores,
        bool_and(is_pass) as all_scores_pass,
        string_agg(
            metric_name, ', ' order by metric_name
        ) filter (where not is_pass) as failed_metrics
    from judged_scores
    group by set_id, test_case_id

),

overall_rows as (

    select
        test_cases.set_id,
        test_cases.test_case_id,
        test_cases.line_number,
        'overall' as scorer,
        cast(test_cases.tool_all_passed as varchar) as value_raw,
        coalesce(case_verdicts.all_scores_pass, true)
        and unscored.test_case_id is null as is_pass,
        cast(null as double) as threshold,
        cast(null as double) as score_threshold,
        nullif(concat_ws(
            '; ',
            'below threshold: ' || case_verdicts.failed_metrics,
            'score rejected: ' || unscored.rejected_metrics
        ), '') as explanation,
        test_cases.tool_all_passed as tool_is_pass,
        test_cases.record_location
    from test_cases
    left join case_verdicts
        on
            test_cases.set_id = case_verdicts.set_id
            and test_cases.test_case_id = case_verdicts.test_case_id
    left join unscored
        on
            test_cases.set_id = unscored.set_id
            and test_cases.test_case_id = unscored.test_case_id

),

item_scores as (

    select
        set_id,
        test_case_id,
        line_number,
        scorer,
        value_raw,
        case when is_pass then 1.0 else 0.0 end as value,
        is_pass,
        threshold,
        score_threshold,
        explanation,
        tool_is_pass,
        record_location
    from overall_rows

    union all

    select
        set_id,
        test_case_id,
        line_number,
        metric_name as scorer,
        score_raw as value_raw,
        score as value,
        is_pass,
        threshold,
        score_threshold,
        reason as explanation,
        tool_passed as tool_is_pass,
        record_location
    from judged_scores

),

final as (

    select
        item_scores.set_id,
        runs.file_sha256,
        runs.drop_date,
        item_scores.line_number,
        item_scores.test_case_id as sample_id,
        cast(1 as integer) as epoch,
        item_scores.scorer,
        test_cases.question as input,
        test_cases.ground_truth as target,
        test_cases.answer,
        test_cases.answer as completion,
        item_scores.value_raw,
        item_scores.value,
        item_scores.is_pass,
        item_scores.explanation,
        -- EvalVault records no error per test case
        cast(null as varchar) as error,
        test_cases.latency_ms / 1000.0 as latency_sec,
        -- EvalVault records one token count per test case (tokens_used)
        cast(null as bigint) as input_tokens,
        cast(null as bigint) as output_tokens,
        test_cases.cost_usd as total_cost,
        runs.set_id as source_file,
        item_scores.record_location,
        test_cases.result_id,
        item_scores.threshold,
        item_scores.score_threshold,
        item_scores.tool_is_pass,
        case
            when item_scores.tool_is_pass is null then null
            else item_scores.tool_is_pass = item_scores.is_pass
        end as agrees_with_tool,
        cast(test_cases.tokens_used as bigint) as tokens_used,
        test_cases.contexts_json,
        {{ scoring_version('evalvault') }} as scoring_version
    from item_scores
    inner join runs
        on item_scores.set_id = runs.set_id
    inner join test_cases
        on
            item_scores.set_id = test_cases.set_id
            and item_scores.test_case_id = test_cases.test_case_id

)

select * from final
