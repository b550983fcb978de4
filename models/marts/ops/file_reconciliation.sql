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

resume_counts as (

    select * from {{ ref('int_resume_agent__files_counted') }}

),

resume_scored as (

    select * from {{ ref('resume_item_scores') }}

),

summary_rows as (

    select * from {{ ref('stg_summary__cases') }}

),

summary_scored as (

    select * from {{ ref('summary_case_scores') }}

),

recruit_rows as (

    select * from {{ ref('stg_recruit_agent__items') }}

),

recruit_scored as (

    select * from {{ ref('recruit_item_scores') }}

),

engagement_lines as (

    select * from {{ ref('stg_engagement__actions') }}

),

engagement_scored_lines as (

    select * from {{ ref('engagement_actions') }}

),

engagement_expected as (

    select * from {{ ref('stg_engagement__expected') }}

),

engagement_scored_runs as (

    select * from {{ ref('engagement_run_scores') }}

),

row_counts as (

    -- resume_agent: counted once per version when loaded
    select
        'resume_agent' as kind,
        source_file,
        sha256,
        n_raw_rows,
        n_valid_rows,
        n_rejected_rows
    from resume_counts
    union all
    select
        'summary' as kind,
        source_file,
        file_sha256 as sha256,
        count(*) as n_raw_rows,
        count(*) filter (where reject_reason is null) as n_valid_rows,
        count(*) filter (where reject_reason is not null) as n_rejected_rows
    from summary_rows
    group by source_file, file_sha256
    union all
    select
        'recruit_agent' as kind,
        source_file,
        file_sha256 as sha256,
        count(*) as n_raw_rows,
        count(*) filter (where reject_reason is null) as n_valid_rows,
        count(*) filter (where reject_reason is not null) as n_rejected_rows
    from recruit_rows
    group by source_file, file_sha256
    union all
    select
        'engagement_actions' as kind,
        source_file,
        file_sha256 as sha256,
        count(*) as n_raw_rows,
        count(*) filter (where reject_reason is null) as n_valid_rows,
        count(*) filter (where reject_reason is not null) as n_rejected_rows
    from engagement_lines
    group by source_file, file_sha256
    union all
    select
        'engagement_expected' as kind,
        source_file,
        file_sha256 as sha256,
        count(*) as n_raw_rows,
        count(*) filter (where reject_reason is null) as n_valid_rows,
        count(*) filter (where reject_reason is not null) as n_rejected_rows
    from engagement_expected
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
    union all
    select
        'summary' as kind,
        set_id as source_file,
        file_sha256 as sha256,
        count(*) as n_scored_rows
    from summary_scored
    group by set_id, file_sha256
    union all
    select
        'recruit_agent' as kind,
        set_id as source_file,
        file_sha256 as sha256,
        count(*) as n_scored_rows
    from recruit_scored
    group by set_id, file_sha256
    union all
    -- usable lines of a current actions.jsonl = its lines in the line mart
    select
        'engagement_actions' as kind,
        source_file,
        file_sha256 as sha256,
        count(*) as n_scored_rows
    from engagement_scored_lines
    group by source_file, file_sha256
    union all
    -- a current expected.json is scored once: in its run's row
    select
        'engagement_expected' as kind,
        expected_file as source_file,
        expected_sha256 as sha256,
        count(*) as n_scored_rows
    from engagement_scored_runs
    where expected_file is not null
    group by expected_file, expected_sha256

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
