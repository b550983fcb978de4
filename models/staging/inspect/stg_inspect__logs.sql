-- One row per loaded Inspect AI log version (all versions; intermediate
-- keeps the current ones): the header's fields typed. A crashed log (no
-- header.json) has status `started` and no results.
with

raw_logs as (

    select * from {{ ref('raw_inspect_logs') }}

),

parsed as (

    select
        source_file,
        sha256,
        loaded_at,
        case
            when json_valid(header_json) then header_json::json
        end as log_header
    from raw_logs

),

final as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        ---------- the run
        'inspect_ai' as tool,
        log_header ->> '$.tool_version' as tool_version,
        try_cast(log_header ->> '$.version' as integer) as log_version,
        log_header ->> '$.status' as status,
        log_header ->> '$.run_id' as run_id,
        log_header ->> '$.eval_id' as eval_id,
        log_header ->> '$.task' as task,
        log_header ->> '$.task_version' as task_version,
        log_header ->> '$.model' as model,
        try_cast(log_header ->> '$.created' as timestamptz) as created_at,
        try_cast(log_header ->> '$.epochs' as integer) as n_epochs,
        coalesce(log_header ->> '$.epochs_reducer[0]', 'mean')
            as epochs_reducer,
        log_header ->> '$.error' as log_error,
        log_header -> '$.results' as results_json,
        log_header -> '$.model_usage' as model_usage_json
    from parsed

)

select * from final
