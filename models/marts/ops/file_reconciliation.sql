-- One row per loaded file version: data records counted in the file by the
-- loader's manifest step, against rows in raw history, rows scored and rows
-- rejected. Data tests assert records = raw rows = valid + rejected, and, for
-- current versions, valid = scored rows in the public item mart.
-- Each input kind adds one branch to row_counts and one to scored_counts.
with

file_versions as (

    select * from {{ ref('stg_drops__file_versions') }}

),

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

resume_rows as (

    select * from {{ ref('stg_resume_agent__items') }}

),

resume_scored as (

    select * from {{ ref('resume_item_scores') }}

),

row_counts as (

    select
        'resume_agent' as kind,
        source_file,
        file_sha256 as sha256,
        count(*) as n_raw_rows,
        count(*) filter (where reject_reason is null) as n_valid_rows,
        count(*) filter (where reject_reason is not null) as n_rejected_rows
    from resume_rows
    group by source_file, file_sha256

),

scored_counts as (

    select
        'resume_agent' as kind,
        set_id as source_file,
        file_sha256 as sha256,
        count(*) as n_scored_rows
    from resume_scored
    group by set_id, file_sha256

),

final as (

    select
        file_versions.source_file,
        file_versions.sha256,
        file_versions.kind,
        file_versions.n_data_records,
        coalesce(row_counts.n_raw_rows, 0) as n_raw_rows,
        coalesce(row_counts.n_valid_rows, 0) as n_valid_rows,
        coalesce(row_counts.n_rejected_rows, 0) as n_rejected_rows,
        current_sets.set_id is not null as is_current,
        case
            when current_sets.set_id is not null
                then coalesce(scored_counts.n_scored_rows, 0)
        end as n_scored_rows
    from file_versions
    left join row_counts
        on
            file_versions.source_file = row_counts.source_file
            and file_versions.sha256 = row_counts.sha256
    left join current_sets
        on
            file_versions.source_file = current_sets.set_id
            and file_versions.sha256 = current_sets.file_sha256
    left join scored_counts
        on
            file_versions.source_file = scored_counts.source_file
            and file_versions.sha256 = scored_counts.sha256
    -- every loaded file of every kind must reconcile: a kind without a
    -- branch above shows 0 raw rows and fails the data tests.
    where file_versions.status = 'loaded'

)

select * from final
