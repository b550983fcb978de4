{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per record of an
-- EvalVault run export that could not be scored, the reason (with its
-- sheet and row, or JSON path) as the reader gave it.
with

records as (

    select * from {{ ref('stg_evalvault__records') }}
    where reject_reason is not null

),

final as (

    select
        'evalvault_run' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        raw_text,
        loaded_at
    from records

)

select * from final
