-- One row per loaded lm-evaluation-harness results file version (all
-- versions; intermediate keeps the current ones): the run's fields typed,
-- and where the file is (its folder and lm-eval's <datetime> in its name:
-- how a results file and its samples files pair).
with

raw_results as (

    select * from {{ ref('raw_lm_eval_results') }}

),

parsed as (

    select
        source_file,
        sha256,
        loaded_at,
        case
            when json_valid(header_json) then {{ nfc('header_json') }}::json
        end as run
    from raw_results

),

final as (

    select
        ---------- lineage
        source_file,
        sha256 as file_sha256,
        loaded_at,
        split_part(source_file, '/', 1) as drop_date,
        ---------- where it pairs
        regexp_extract(source_file, '^(.*)/[^/]+$', 1) as folder,
        run ->> '$.datetime' as run_datetime,
        ---------- the run
        'lm_eval' as tool,
        run ->> '$.lm_eval_version' as tool_version,
        run ->> '$.model' as model_type,
        run ->> '$.model_args' as model_args,
        run ->> '$.model_name' as model_name,
        run ->> '$.model_name_sanitized' as model_name_sanitized,
        run ->> '$.model_source' as model_source,
        run ->> '$.git_hash' as git_hash,
        {{ epoch_timestamp(
            json_finite_number("run -> '$.date'")
        ) }} as started_at,
        {{ json_nonneg_number("run -> '$.total_evaluation_time_sec'") }}
            as total_evaluation_time_sec,
        cast(run -> '$.config' as varchar) as config_json,
        cast(run -> '$.groups' as varchar) as groups_json
    from parsed

)

select * from final
