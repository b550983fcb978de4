{{ config(
    materialized='set_incremental',
    sets_model='int_lm_eval__task_sets',
    version_column='set_version',
    built_version_column='file_sha256',
) }}
-- One row per lm-eval set (a results file's task): the run (lm-eval's
-- <datetime> of the files), its series (lm_eval, task, model), the
-- documents scored and lm-eval's own counts (n-samples), the task's
-- config (n-shot, version, output type), the lm-eval release and timing.
-- lm-eval writes its files when the run has finished: every set is
-- complete. It records no tokens and no cost.
with

sets as (

    select * from {{ unbuilt(ref('int_lm_eval__task_sets'), 'set_version') }}

),

items as (

    select * from {{ unbuilt(ref('lm_eval_item_scores')) }}

),

item_counts as (

    select
        set_id,
        count(distinct sample_id) as n_samples,
        count(distinct filter_name) as n_filters,
        count(distinct scorer) as n_scorers
    from items
    group by set_id

),

final as (

    select
        sets.set_id,
        sets.series_id,
        sets.tool,
        sets.tool_version,
        cast(null as integer) as format_version,
        sets.run_datetime as run_id,
        sets.task,
        sets.model,
        cast(null as varchar) as prompt,
        sets.started_at as created_at,
        'success' as status,
        true as is_complete,
        cast(null as varchar) as run_error,
        sets.headline_scorer,
        cast(coalesce(item_counts.n_samples, 0) as bigint) as n_samples,
        cast(1 as integer) as n_epochs,
        cast(coalesce(item_counts.n_samples, 0) as bigint)
            as n_sample_records,
        cast(0 as bigint) as n_errored,
        cast(null as bigint) as input_tokens,
        cast(null as bigint) as output_tokens,
        cast(null as double) as total_cost,
        cast(null as double) as tokens_per_sample,
        sets.drop_date,
        sets.results_file as source_file,
        sets.file_sha256,
        sets.results_sha256,
        sets.samples_file,
        sets.samples_sha256,
        sets.task_alias,
        sets.model_type,
        sets.model_args,
        sets.model_name_sanitized,
        sets.model_source,
        sets.git_hash,
        sets.task_version,
        sets.n_shot,
        sets.output_type,
        sets.dataset_path,
        sets.task_hash,
        sets.n_docs_original,
        sets.n_docs_effective,
        cast(coalesce(item_counts.n_filters, 0) as bigint) as n_filters,
        cast(coalesce(item_counts.n_scorers, 0) as bigint) as n_scorers,
        sets.total_evaluation_time_sec,
        {{ scoring_version('lm_eval') }} as scoring_version
    from sets
    left join item_counts
        on sets.set_id = item_counts.set_id

)

select * from final
