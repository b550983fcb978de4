{{ config(materialized='set_incremental', kind='evalvault_run') }}
-- One row per EvalVault run export (one evaluation set): the run
-- (EvalVault's run id), its series (evalvault, dataset, model), its test
-- cases, how many pass, its scores, tokens and cost as the test cases
-- record them, beside the run's own totals as EvalVault reported them. A
-- stored run has finished (finished_at): one without is marked incomplete.
with

runs as (

    select * from {{ unbuilt(ref('int_evalvault__runs_current')) }}

),

items as (

    select * from {{ unbuilt(ref('evalvault_item_scores')) }}

),

case_counts as (

    select
        set_id,
        count(*) as n_test_cases,
        count(*) filter (where is_pass) as n_passed,
        sum(tokens_used) as total_tokens,
        sum(total_cost) as total_cost,
        {{ exact_avg('tokens_used') }} as tokens_per_sample
    from items
    where scorer = 'overall'
    group by set_id

),

score_counts as (

    select
        set_id,
        count(*) as n_scores,
        count(distinct scorer) as n_metrics
    from items
    where scorer <> 'overall'
    group by set_id

),

final as (

    select
        runs.set_id,
        runs.series_id,
        runs.tool,
        -- neither export records the EvalVault release nor a format version
        cast(null as varchar) as tool_version,
        cast(null as integer) as format_version,
        runs.run_id,
        runs.dataset_name as task,
        runs.model_name as model,
        -- EvalVault's series has no prompt dimension
        cast(null as varchar) as prompt,
        runs.started_at as created_at,
        case when runs.is_complete then 'success' else 'started' end
            as status,
        runs.is_complete,
        cast(null as varchar) as run_error,
        'overall' as headline_scorer,
        cast(coalesce(case_counts.n_test_cases, 0) as bigint) as n_samples,
        cast(1 as integer) as n_epochs,
        cast(coalesce(case_counts.n_test_cases, 0) as bigint)
            as n_sample_records,
        cast(0 as bigint) as n_errored,
        cast(null as bigint) as input_tokens,
        cast(null as bigint) as output_tokens,
        case_counts.total_cost,
        case_counts.tokens_per_sample,
        runs.drop_date,
        runs.set_id as source_file,
        runs.file_sha256,
        runs.export_format,
        runs.dataset_name,
        runs.dataset_version,
        runs.model_name,
        runs.started_at,
        runs.finished_at,
        cast(coalesce(case_counts.n_passed, 0) as bigint) as n_passed,
        cast(coalesce(score_counts.n_scores, 0) as bigint) as n_scores,
        cast(coalesce(score_counts.n_metrics, 0) as bigint) as n_metrics,
        cast(case_counts.total_tokens as bigint) as total_tokens,
        cast(runs.metrics_evaluated_json as varchar) as metrics_evaluated,
        cast(runs.thresholds_json as varchar) as thresholds,
        runs.reported_pass_rate,
        cast(runs.reported_total_test_cases as bigint)
            as reported_total_test_cases,
        cast(runs.reported_total_tokens as bigint) as reported_total_tokens,
        runs.reported_total_cost,
        {{ scoring_version('evalvault') }} as scoring_version
    from runs
    left join case_counts
        on runs.set_id = case_counts.set_id
    left join score_counts
        on runs.set_id = score_counts.set_id

)

select * from final
