{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per loaded
-- resume_agent file version with rows in raw history: its rows, valid and
-- rejected (counted once per version when loaded), and for a current
-- version its rows in the public item mart.
with

file_counts as (

    select * from {{ ref('int_resume_agent__files_counted') }}

),

scored_items as (

    select * from {{ ref('resume_item_scores') }}

),

scored_counts as (

    select
        set_id as source_file,
        file_sha256 as sha256,
        count(*) as n_scored_rows
    from scored_items
    group by set_id, file_sha256

),

final as (

    select
        'resume_agent' as kind,
        file_counts.source_file,
        file_counts.sha256,
        file_counts.n_raw_rows,
        file_counts.n_valid_rows,
        file_counts.n_rejected_rows,
        scored_counts.n_scored_rows
    from file_counts
    left join scored_counts
        on
            file_counts.source_file = scored_counts.source_file
            and file_counts.sha256 = scored_counts.sha256

)

select * from final
