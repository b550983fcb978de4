-- One row per current Inspect AI log version (one evaluation set): its
-- header's fields, its series (tool, task, model) and the scorer whose
-- verdicts the history's item marts follow (the log's headline scorer;
-- without results, the first scorer its samples name).
with

current_sets as (

    select * from {{ ref('int_sets__current') }}
    where kind = 'inspect_log'

),

logs as (

    select * from {{ ref('stg_inspect__logs') }}

),

joined as (

    select
        current_sets.set_id,
        current_sets.file_sha256,
        cast(current_sets.drop_date as date) as drop_date,
        logs.tool,
        logs.tool_version,
        logs.log_version,
        logs.status,
        logs.run_id,
        logs.eval_id,
        logs.task,
        logs.task_version,
        logs.model,
        logs.created_at,
        logs.n_epochs,
        logs.epochs_reducer,
        logs.log_error,
        logs.results_json,
        logs.model_usage_json,
        logs.results_json ->> '$.headline.scorer' as headline_scorer,
        logs.results_json ->> '$.headline.score' as headline_score
    from current_sets
    inner join logs
        on
            current_sets.set_id = logs.source_file
            and current_sets.file_sha256 = logs.file_sha256

),

final as (

    select
        set_id,
        file_sha256,
        drop_date,
        tool,
        tool_version,
        log_version,
        status,
        status = 'success' as is_complete,
        run_id,
        eval_id,
        task,
        task_version,
        model,
        created_at,
        n_epochs,
        epochs_reducer,
        log_error,
        results_json,
        model_usage_json,
        tool || ':' || coalesce(task, '?') || ':' || coalesce(model, '?')
            as series_id,
        case
            when headline_score is null then null
            when headline_scorer = headline_score then headline_score
            else headline_scorer || '.' || headline_score
        end as headline_scorer
    from joined

)

select * from final
