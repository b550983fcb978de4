{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per line of a
-- recruit_agent file that could not be scored, the reason spelled out.
with

items as (

    select * from {{ ref('stg_recruit_agent__items') }}
    where reject_reason is not null

),

final as (

    select
        'recruit_agent' as kind,
        source_file,
        file_sha256 as sha256,
        line_number,
        split_part(reject_reason, ':', 1) as reason,
        case reject_reason
            when 'missing_item_id'
                then 'missing_item_id: itemId is null or blank'
            when 'missing_query_id'
                then 'missing_query_id: queryId is null or blank'
            else reject_reason
        end as reason_detail,
        coalesce(raw_text, record_json) as raw_text,
        loaded_at
    from items

)

select * from final
