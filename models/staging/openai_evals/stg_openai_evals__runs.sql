-- One row per loaded OpenAI Evals record file version (all versions;
-- intermediate keeps the current ones): the spec's fields typed (evals'
-- RunSpec), the final report kept as JSON (null when the run did not
-- finish).
with

raw_runs as (

    select * from {{ ref('raw_openai_evals_runs') }}

),

parsed as (

    select
        source_file,
        sha256,
        loaded_at,
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
        ---------- the run (spec)
        'openai_evals' as tool,
        run_header ->> '$.spec.run_id' as run_id,
        run_header ->> '$.spec.eval_name' as eval_name,
        run_header ->> '$.spec.base_eval' as base_eval,
        run_header ->> '$.spec.split' as eval_split,
        array_to_string(
            json_transform(
                run_header -> '$.spec.completion_fns', '["VARCHAR"]'
            ),
            ','
        ) as completion_fns,
        run_header ->> '$.spec.created_by' as created_by,
        -- evals writes its creation time in UTC without a zone
        try_cast(
            (run_header ->> '$.spec.created_at') || '+00:00' as timestamptz
        ) as created_at,
        run_header ->> '$.spec.run_config.eval_spec.cls' as eval_class,
        cast(run_header -> '$.spec.run_config.eval_spec.args' as varchar)
            as eval_args_json,
        try_cast(run_header ->> '$.spec.run_config.seed' as bigint)
            as seed,
        try_cast(run_header ->> '$.spec.run_config.max_samples' as bigint)
            as max_samples,
        run_header ->> '$.spec.run_config.command' as command,
        ---------- the final report
        -- a JSON null when the file has none: SQL null here
        case
            when json_type(run_header -> '$.final_report') = 'OBJECT'
                then run_header -> '$.final_report'
        end as final_report_json,
        try_cast(run_header ->> '$.final_report_line' as bigint)
            as final_report_line
    from parsed

)

select * from final
