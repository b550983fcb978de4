{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per result of a
-- promptfoo output that could not be scored, the reason (with where it
-- is) as the reader gave it.
with

results as (

    select * from {{ ref('stg_promptfoo__results') }}
    where reject_reason is not null

),

final as (

    select
        'promptfoo_output' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        raw_text,
        loaded_at
    from results

)

select * from final
