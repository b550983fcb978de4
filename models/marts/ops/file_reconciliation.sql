-- One row per loaded file version: data records counted in the file by the
-- loader's manifest step, against rows in raw history, rows scored and rows
-- rejected. Data tests assert records = raw rows = valid + rejected, and, for
-- current versions, valid = scored rows in the public item mart. Each
-- registered agent gives its counts in int_<agent>__file_rows.
with

file_versions as (

    select * from {{ ref('stg_drops__file_versions') }}

),

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

file_rows as (

    {{ agents_union('file_rows', [
        'kind', 'source_file', 'sha256', 'n_raw_rows', 'n_valid_rows',
        'n_rejected_rows', 'n_scored_rows'
    ]) }}

),

final as (

    select
        file_versions.source_file,
        file_versions.sha256,
        file_versions.kind,
        file_versions.n_data_records,
        coalesce(file_rows.n_raw_rows, 0) as n_raw_rows,
        coalesce(file_rows.n_valid_rows, 0) as n_valid_rows,
        coalesce(file_rows.n_rejected_rows, 0) as n_rejected_rows,
        current_sets.set_id is not null as is_current,
        case
            when current_sets.set_id is not null
                then coalesce(file_rows.n_scored_rows, 0)
        end as n_scored_rows
    from file_versions
    left join file_rows
        on
            file_versions.source_file = file_rows.source_file
            and file_versions.sha256 = file_rows.sha256
    left join current_sets
        on
            file_versions.source_file = current_sets.set_id
            and file_versions.sha256 = current_sets.file_sha256
    -- every loaded file of every kind must reconcile: a kind no agent
    -- counts shows 0 raw rows and fails the data tests.
    where file_versions.status = 'loaded'

)

select * from final
