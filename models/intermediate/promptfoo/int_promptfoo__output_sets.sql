{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_file_versions(kind='promptfoo_output') }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
-- One row per evaluation set of the current promptfoo outputs: a column of
-- the output (its provider and prompt, promptIdx) with at least one usable
-- result, set_id `<file>#<promptIdx>`. Its series is (promptfoo, the
-- eval's description, else the file name, provider, prompt); the figures
-- promptfoo reported for the column (results.prompts[promptIdx].metrics)
-- ride along. The sets model of the promptfoo marts (their sets_model);
-- built per new file version.
with

new_versions as (

    select * from {{ ref('int_sets__current') }}
    where
        kind = 'promptfoo_output'
        and {{ is_unprocessed_version(
            "select set_id, file_sha256 from " ~ ref('int_sets__current')
            ~ " where kind = 'promptfoo_output'",
            'set_id', 'file_sha256'
        ) }}

),

results as (

    select * from {{ ref('stg_promptfoo__results') }}
    where
        reject_reason is null
        and {{ is_unprocessed_version(
            "select set_id, file_sha256 from " ~ ref('int_sets__current')
            ~ " where kind = 'promptfoo_output'",
            'source_file', 'file_sha256'
        ) }}

),

outputs as (

    select * from {{ ref('stg_promptfoo__outputs') }}

),

columns as (

    select
        results.source_file,
        results.file_sha256,
        results.prompt_idx,
        results.set_id,
        min(results.provider) as provider,
        min(results.provider_id) as provider_id,
        min(results.prompt_label) as prompt_label
    from results
    inner join new_versions
        on
            results.source_file = new_versions.set_id
            and results.file_sha256 = new_versions.file_sha256
    group by all

),

final as (

    select
        columns.set_id,
        columns.source_file,
        columns.file_sha256 as sha256,
        columns.file_sha256,
        cast(new_versions.drop_date as date) as drop_date,
        columns.prompt_idx,
        columns.provider,
        columns.provider_id,
        columns.prompt_label,
        outputs.tool,
        outputs.tool_version,
        outputs.output_format,
        outputs.format_version,
        outputs.eval_id,
        coalesce(
            outputs.description,
            regexp_extract(columns.source_file, '([^/]+)\.[^./]+$', 1)
        ) as task,
        outputs.created_at,
        'promptfoo:'
        || coalesce(
            outputs.description,
            regexp_extract(columns.source_file, '([^/]+)\.[^./]+$', 1)
        )
        || ':' || coalesce(columns.provider, '?')
        || ':' || coalesce(columns.prompt_label, '?') as series_id,
        cast(
            json_extract(
                outputs.columns_json,
                '$."' || columns.prompt_idx || '".metrics'
            ) as varchar
        ) as reported_metrics_json
    from columns
    inner join new_versions
        on
            columns.source_file = new_versions.set_id
            and columns.file_sha256 = new_versions.file_sha256
    left join outputs
        on
            columns.source_file = outputs.source_file
            and columns.file_sha256 = outputs.file_sha256

)

select * from final
