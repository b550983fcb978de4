{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per instance line
-- of an Every Eval Ever aggregate's instance file that could not be
-- scored, the reason (with its line) as the reader gave it.
with

instances as (

    select * from {{ ref('stg_every_eval_ever__instances') }}
    where reject_reason is not null

),

final as (

    select
        'every_eval_ever_aggregate' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        reject_reason as reason_detail,
        raw_text,
        loaded_at
    from instances

)

select * from final
