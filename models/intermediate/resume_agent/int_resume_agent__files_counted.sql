{{ config(materialized='incremental', incremental_strategy='append') }}
{%- set new_versions = is_unprocessed_version(
    "select source_file, sha256 from " ~ ref('raw_drop_files')
    ~ " where kind = 'resume_agent' and status = 'loaded'",
    'source_file', 'file_sha256'
) %}
-- One row per loaded resume_agent file version: its rows in raw history,
-- valid and rejected. Counted once, when the version is loaded (a version's
-- rows never change), so ops.file_reconciliation does not rescan history.
with

items as (

    select * from {{ ref('stg_resume_agent__items') }}
    where {{ new_versions }}

),

final as (

    select
        source_file,
        file_sha256 as sha256,
        count(*) as n_raw_rows,
        count(*) filter (where reject_reason is null) as n_valid_rows,
        count(*) filter (where reject_reason is not null) as n_rejected_rows
    from items
    group by source_file, file_sha256

)

select * from final
