-- One row per data record that could not be scored: file, line, reason and
-- the raw text. Parse failures come from the loader, value failures (e.g.
-- invalid_track) from staging; each registered agent gives its rows in
-- int_<agent>__rejected_rows. is_current: the record belongs to the current
-- version of its file.
with

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

all_rejects as (

    {{ agents_union('rejected_rows', [
        'kind', 'source_file', 'sha256', 'line_number', 'reason',
        'reason_detail', 'raw_text', 'loaded_at'
    ]) }}

),

final as (

    select
        all_rejects.kind,
        all_rejects.source_file,
        all_rejects.sha256,
        all_rejects.line_number,
        all_rejects.reason,
        all_rejects.reason_detail,
        all_rejects.raw_text,
        current_sets.set_id is not null as is_current,
        all_rejects.loaded_at
    from all_rejects
    left join current_sets
        on
            all_rejects.source_file = current_sets.set_id
            and all_rejects.sha256 = current_sets.file_sha256

)

select * from final
