-- One row per engagement run: a folder <date>/engagement/<run_id> holding at
-- least one current file version (actions.jsonl of its agents, its
-- expected.json). set_id is the run folder; run_sha256 fingerprints the
-- current versions of all its files, so a changed, added or restored file
-- gives the run a new fingerprint and the run-grained marts rebuild it.
with

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

engagement_files as (

    select
        *,
        regexp_extract(set_id, '^[^/]+/engagement/[^/]+') as run_path
    from current_sets
    where kind in ('engagement_actions', 'engagement_expected')

),

runs as (

    select
        run_path,
        any_value(drop_date) as drop_date,
        sha256(
            string_agg(set_id || '=' || file_sha256, ';' order by set_id)
        ) as run_sha256,
        count(*) filter (where kind = 'engagement_actions') as n_action_files,
        max(set_id) filter (where kind = 'engagement_expected')
            as expected_file,
        max(file_sha256) filter (where kind = 'engagement_expected')
            as expected_sha256,
        max(loaded_at) as loaded_at
    from engagement_files
    group by run_path

),

final as (

    select
        run_path as set_id,
        run_sha256,
        drop_date,
        split_part(run_path, '/', 3) as run_id,
        cast(n_action_files as bigint) as n_action_files,
        expected_file,
        expected_sha256,
        loaded_at
    from runs

)

select * from final
