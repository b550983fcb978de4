{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per event line of
-- an OpenAI Evals record file that could not be used, the reason (with its
-- line) as the reader gave it.
with

events as (

    select * from {{ ref('stg_openai_evals__events') }}
    where reject_reason is not null

),

final as (

    select
        'openai_evals_record' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        raw_text,
        loaded_at
    from events

)

select * from final
