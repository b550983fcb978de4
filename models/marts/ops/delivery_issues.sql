-- One row per (issue, subject, reason code): what an owner must see next to
-- the night's scores, because it is not in them. A file rejected whole (its
-- latest observation), the rejected rows of a current file version (one row
-- per reason), a withdrawn delivery (per path, its latest withdrawn
-- version) and an expected series that did not arrive (a stale freshness
-- gate). The morning page and the viewer's overview select from here; the
-- details stay in the table named by details_table.
--
-- Runs before the verdict tests on its parents (assert_no_rejected_input,
-- assert_quality_gates_pass depend on it): a night with rejections or a
-- stale series is exactly the night this table must be built.
with

rejected_files as (

    select * from {{ ref('rejected_files') }}
    where is_latest

),

rejected_rows as (

    select * from {{ ref('rejected_rows') }}
    where is_current

),

reconciliation as (

    select * from {{ ref('file_reconciliation') }}
    where is_current

),

load_log as (

    select * from {{ ref('load_log') }}

),

gate_results as (

    select * from {{ ref('history_gate_results') }}
    where metric = 'freshness' and status = 'stale'

),

registry as (

    select * from {{ ref('agents') }}

),

reasons as (

    select * from {{ ref('delivery_issue_reasons') }}

),

agent_kinds as (

    select
        agent,
        unnest(string_split(input_kinds, ' ')) as kind
    from registry

),

-- one row per version whose rows are in raw history: its loaded
-- observation. A path's bytes are loaded once; a later observation of the
-- same bytes (restored) is the same version, not parsed again, so it has
-- no record count of its own.
file_versions as (

    select
        source_file,
        sha256,
        drop_date,
        file_name,
        n_data_records
    from load_log
    where status = 'loaded'

),

classify_rejected_files as (

    select
        rejected_files.*,
        coalesce(reasons.reason_code, 'other') as reason_code
    from rejected_files
    left join reasons
        on regexp_matches(
            rejected_files.reject_reason, reasons.file_reason_pattern
        )
    qualify
        row_number() over (
            partition by rejected_files.observation_seq
            order by reasons.match_order nulls last
        ) = 1

),

file_issues as (

    select
        'rejected_file' as issue,
        source_file as subject,
        reason_code,
        kind,
        drop_date,
        source_file,
        file_name,
        cast(null as varchar) as series_id,
        sha256,
        reject_reason as reason_detail,
        true as is_delivery_rejected,
        cast(null as bigint) as n_records,
        cast(null as bigint) as n_rejected_rows,
        cast(null as bigint) as first_line_number,
        cast(null as varchar) as last_set_id,
        cast(null as date) as last_drop_date,
        cast(null as double) as age_days,
        cast(null as varchar) as acted_by,
        loaded_at as observed_at,
        'ops.rejected_files' as details_table
    from classify_rejected_files

),

count_rejected_rows as (

    select
        source_file,
        sha256,
        kind,
        reason as reason_code,
        count(*) as n_rejected_rows,
        min(line_number) as first_line_number,
        arg_min(reason_detail, line_number) as reason_detail,
        max(loaded_at) as observed_at
    from rejected_rows
    group by source_file, sha256, kind, reason

),

row_issues as (

    select
        'rejected_rows' as issue,
        count_rejected_rows.source_file as subject,
        count_rejected_rows.reason_code,
        count_rejected_rows.kind,
        file_versions.drop_date,
        count_rejected_rows.source_file,
        file_versions.file_name,
        cast(null as varchar) as series_id,
        count_rejected_rows.sha256,
        count_rejected_rows.reason_detail,
        -- every record of the file was rejected: nothing of it was scored
        coalesce(
            reconciliation.n_rejected_rows = reconciliation.n_data_records,
            false
        ) as is_delivery_rejected,
        reconciliation.n_data_records as n_records,
        count_rejected_rows.n_rejected_rows,
        count_rejected_rows.first_line_number,
        cast(null as varchar) as last_set_id,
        cast(null as date) as last_drop_date,
        cast(null as double) as age_days,
        cast(null as varchar) as acted_by,
        count_rejected_rows.observed_at,
        'ops.rejected_rows' as details_table
    from count_rejected_rows
    left join file_versions
        on
            count_rejected_rows.source_file = file_versions.source_file
            and count_rejected_rows.sha256 = file_versions.sha256
    left join reconciliation
        on
            count_rejected_rows.source_file = reconciliation.source_file
            and count_rejected_rows.sha256 = reconciliation.sha256

),

latest_withdrawals as (

    select *
    from load_log
    where is_withdrawn and status in ('loaded', 'restored')
    qualify
        row_number() over (
            partition by source_file
            order by withdrawn_at desc, observation_seq desc
        ) = 1

),

withdrawn_issues as (

    select
        'withdrawn' as issue,
        latest_withdrawals.source_file as subject,
        'withdrawn' as reason_code,
        latest_withdrawals.kind,
        latest_withdrawals.drop_date,
        latest_withdrawals.source_file,
        latest_withdrawals.file_name,
        cast(null as varchar) as series_id,
        latest_withdrawals.sha256,
        latest_withdrawals.withdrawal_reason as reason_detail,
        false as is_delivery_rejected,
        -- counted when the version was loaded (a restored observation of it
        -- has no count)
        file_versions.n_data_records as n_records,
        cast(null as bigint) as n_rejected_rows,
        cast(null as bigint) as first_line_number,
        cast(null as varchar) as last_set_id,
        cast(null as date) as last_drop_date,
        cast(null as double) as age_days,
        latest_withdrawals.withdrawn_by as acted_by,
        latest_withdrawals.withdrawn_at as observed_at,
        'ops.load_log' as details_table
    from latest_withdrawals
    left join file_versions
        on
            latest_withdrawals.source_file = file_versions.source_file
            and latest_withdrawals.sha256 = file_versions.sha256

),

series_issues as (

    select
        'missing_series' as issue,
        series_id as subject,
        case
            when set_id is null then 'series_never_arrived'
            else 'series_late'
        end as reason_code,
        cast(null as varchar) as kind,
        -- news as of the build, not of a drop date
        cast(null as date) as drop_date,
        cast(null as varchar) as source_file,
        cast(null as varchar) as file_name,
        series_id,
        cast(null as varchar) as sha256,
        reason as reason_detail,
        false as is_delivery_rejected,
        cast(null as bigint) as n_records,
        cast(null as bigint) as n_rejected_rows,
        cast(null as bigint) as first_line_number,
        set_id as last_set_id,
        drop_date as last_drop_date,
        metric_value as age_days,
        cast(null as varchar) as acted_by,
        cast(null as timestamp) as observed_at,
        'marts.history_gate_results' as details_table,
        agent
    from gate_results

),

file_based_issues as (

    select * from file_issues
    union all
    select * from row_issues
    union all
    select * from withdrawn_issues

),

name_agents as (

    select
        file_based_issues.*,
        agent_kinds.agent
    from file_based_issues
    left join agent_kinds
        on file_based_issues.kind = agent_kinds.kind
    union all
    select * from series_issues

),

final as (

    select
        name_agents.issue,
        name_agents.subject,
        name_agents.reason_code,
        name_agents.agent,
        name_agents.kind,
        name_agents.drop_date,
        name_agents.source_file,
        name_agents.file_name,
        name_agents.series_id,
        name_agents.sha256,
        reasons.label_ko as reason_label,
        name_agents.reason_detail,
        name_agents.is_delivery_rejected,
        name_agents.n_records,
        name_agents.n_rejected_rows,
        name_agents.first_line_number,
        name_agents.last_set_id,
        name_agents.last_drop_date,
        name_agents.age_days,
        name_agents.acted_by,
        name_agents.observed_at,
        name_agents.details_table
    from name_agents
    left join reasons
        on name_agents.reason_code = reasons.reason_code

)

select * from final
