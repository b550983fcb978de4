{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per sample record
-- of an Inspect AI log that could not be scored, the reason (with its
-- member) as the reader gave it.
with

samples as (

    select * from {{ ref('stg_inspect__samples') }}
    where reject_reason is not null

),

final as (

    select
        'inspect_log' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        raw_text,
        loaded_at
    from samples

)

select * from final
