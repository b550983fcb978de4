{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded Every
-- Eval Ever aggregate version with instance lines in raw history: its
-- lines, valid and rejected, and for a current version the lines in
-- every_eval_ever_item_scores.
with

instances as (

    select * from {{ ref('stg_every_eval_ever__instances') }}

),

items as (

    select * from {{ ref('every_eval_ever_item_scores') }}

),

row_counts as (

    select
        source_file,
        file_sha256 as sha256,
        count(*) as n_raw_rows,
        count(*) filter (where reject_reason is null) as n_valid_rows,
        count(*) filter (where reject_reason is not null) as n_rejected_rows
    from instances
    group by source_file, file_sha256

),

scored_counts as (

    select
        set_id as source_file,
        file_sha256 as sha256,
        count(distinct line_number) as n_scored_rows
    from items
    group by set_id, file_sha256

),

final as (

    select
        'every_eval_ever_aggregate' as kind,
        row_counts.source_file,
        row_counts.sha256,
        row_counts.n_raw_rows,
        row_counts.n_valid_rows,
        row_counts.n_rejected_rows,
        scored_counts.n_scored_rows
    from row_counts
    left join scored_counts
        on
            row_counts.source_file = scored_counts.source_file
            and row_counts.sha256 = scored_counts.sha256

)

select * from final
