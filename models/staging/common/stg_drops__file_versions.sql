-- One row per observation of a drop file, with its place in the file's history.
-- The current version of a path is its latest observation whose rows are in
-- raw history (status loaded or restored) and that is not withdrawn; every
-- other such observation is superseded. A rejected or repeated observation
-- never replaces a good one. A withdrawn version (operator.withdrawals: the
-- latest action on the version is withdraw) is never current: its sets
-- leave the marts, its raw rows stay.
with

observations as (

    select * from {{ ref('raw_drop_files') }}

),

withdrawal_actions as (

    select * from {{ source('operator', 'withdrawals') }}

),

withdrawals as (

    select
        source_file,
        sha256,
        reason as withdrawal_reason,
        acted_by as withdrawn_by,
        acted_at as withdrawn_at
    from withdrawal_actions
    qualify
        row_number() over (
            partition by source_file, sha256 order by action_seq desc
        ) = 1
        and action = 'withdraw'

),

marked as (

    select
        observations.*,
        withdrawals.withdrawal_reason,
        withdrawals.withdrawn_by,
        withdrawals.withdrawn_at,
        withdrawals.sha256 is not null as is_withdrawn,
        observations.status in ('loaded', 'restored') as has_rows
    from observations
    left join withdrawals
        on
            observations.source_file = withdrawals.source_file
            and observations.sha256 = withdrawals.sha256

),

versioned as (

    select
        *,
        max(case when has_rows and not is_withdrawn then observation_seq end)
            over (partition by source_file) as current_seq
    from marked

),

final as (

    select
        ---------- ids
        source_file,
        sha256,
        observation_seq,
        load_id,
        ---------- file facts
        kind,
        drop_date,
        file_name,
        size_bytes,
        modified_at,
        encoding,
        n_data_records,
        n_lines,
        loader,
        loader_note,
        ---------- outcome
        status,
        reject_reason,
        duplicate_of,
        has_rows,
        coalesce(observation_seq = current_seq, false) as is_current,
        coalesce(has_rows and observation_seq < current_seq, false)
            as is_superseded,
        is_withdrawn,
        withdrawal_reason,
        withdrawn_by,
        withdrawn_at,
        loaded_at
    from versioned

)

select * from final
