{{ config(materialized='table') }}
-- One row per evaluation set of the current lm-eval outputs: a (results
-- file, task) whose samples file is there (int_lm_eval__pairs), set_id
-- `<results file>#<task>`. Its version fingerprints both files (a new
-- results file or a new samples file rebuilds the set); its series is
-- (lm_eval, task, model): the model is lm-eval's model_name (taken from
-- model_args pretrained=, model=, ...), else config.model and its
-- model_args. The task's figures as lm-eval reported them ride along, and
-- its headline scorer: the first "<metric>,<filter>" of its results entry
-- that lm-eval aggregates by mean. The sets model of the lm_eval marts
-- (their sets_model); a table of one row per set,
-- rebuilt each night from the files' headers.
with

pairs as (

    select * from {{ ref('int_lm_eval__pairs') }}
    where is_paired

),

tasks as (

    select * from {{ ref('stg_lm_eval__tasks') }}

),

runs as (

    select * from {{ ref('stg_lm_eval__results') }}

),

default_aggregations as (

    select * from {{ ref('lm_eval_metric_aggregations') }}

),

paired_tasks as (

    select
        pairs.results_file || '#' || pairs.task as set_id,
        sha256(pairs.results_sha256 || ':' || pairs.samples_sha256)
            as set_version,
        pairs.results_file,
        pairs.results_sha256,
        pairs.samples_file,
        pairs.samples_sha256,
        pairs.folder,
        pairs.run_datetime,
        pairs.task,
        tasks.task_alias,
        tasks.scorers_json,
        tasks.aggregations_json,
        tasks.higher_is_better_json,
        tasks.n_docs_original,
        tasks.n_docs_effective,
        tasks.n_shot,
        tasks.task_version,
        tasks.task_hash,
        tasks.output_type,
        tasks.repeats,
        tasks.dataset_path
    from pairs
    inner join tasks
        on
            pairs.results_file = tasks.source_file
            and pairs.results_sha256 = tasks.file_sha256
            and pairs.task_line_number = tasks.line_number

),

scorer_entries as (

    select
        set_id,
        unnest(json_transform(scorers_json, '["JSON"]')) as entry,
        generate_subscripts(json_transform(scorers_json, '["JSON"]'), 1)
            as scorer_order,
        aggregations_json
    from paired_tasks

),

scorers as (

    select
        scorer_entries.set_id,
        scorer_entries.scorer_order,
        scorer_entries.entry ->> '$.scorer' as scorer,
        coalesce(
            scorer_entries.aggregations_json
            ->> ('$."' || (scorer_entries.entry ->> '$.metric') || '"'),
            default_aggregations.aggregation,
            -- lm-eval's own fallback: "No aggregation function defined
            -- for metric ... Using mean."
            'mean'
        ) as aggregation
    from scorer_entries
    left join default_aggregations
        on (scorer_entries.entry ->> '$.metric') = default_aggregations.metric

),

headlines as (

    select
        set_id,
        arg_min(scorer, scorer_order) as headline_scorer
    from scorers
    where aggregation = 'mean'
    group by set_id

),

final as (

    select
        paired_tasks.set_id,
        paired_tasks.set_version,
        -- the marts' file_sha256: the set's version (both files)
        paired_tasks.set_version as file_sha256,
        cast(split_part(paired_tasks.results_file, '/', 1) as date)
            as drop_date,
        paired_tasks.results_file,
        paired_tasks.results_sha256,
        paired_tasks.samples_file,
        paired_tasks.samples_sha256,
        paired_tasks.run_datetime,
        paired_tasks.task,
        paired_tasks.task_alias,
        coalesce(
            runs.model_name,
            runs.model_type || coalesce(' ' || runs.model_args, '')
        ) as model,
        'lm_eval:' || paired_tasks.task || ':'
        || coalesce(
            runs.model_name,
            runs.model_type || coalesce(' ' || runs.model_args, ''),
            '?'
        ) as series_id,
        runs.tool,
        runs.tool_version,
        runs.model_type,
        runs.model_args,
        runs.model_name_sanitized,
        runs.model_source,
        runs.git_hash,
        runs.started_at,
        runs.total_evaluation_time_sec,
        headlines.headline_scorer,
        cast(paired_tasks.scorers_json as varchar) as scorers_json,
        cast(paired_tasks.aggregations_json as varchar) as aggregations_json,
        cast(paired_tasks.higher_is_better_json as varchar)
            as higher_is_better_json,
        paired_tasks.n_docs_original,
        paired_tasks.n_docs_effective,
        paired_tasks.n_shot,
        paired_tasks.task_version,
        paired_tasks.task_hash,
        paired_tasks.output_type,
        paired_tasks.repeats,
        paired_tasks.dataset_path
    from paired_tasks
    left join runs
        on
            paired_tasks.results_file = runs.source_file
            and paired_tasks.results_sha256 = runs.file_sha256
    left join headlines
        on paired_tasks.set_id = headlines.set_id

)

select * from final
