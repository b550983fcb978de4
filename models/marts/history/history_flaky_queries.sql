-- One row per (series, query) that was flaky (passed in some runs and failed
-- in others) in at least `history_flaky_min_sets` of the series' last
-- `history_flaky_window` sets (dbt vars): the questions to look at first.
with

repeats as (

    select * from {{ ref('history_query_repeats') }}

),

sets as (

    select * from {{ ref('int_history__sets') }}

),

recent as (

    select
        sets.series_id,
        sets.set_seq,
        sets.n_sets_in_series,
        sets.is_latest,
        repeats.*
    from repeats
    inner join sets
        on repeats.set_id = sets.set_id
    where
        sets.set_seq
        > sets.n_sets_in_series - {{ var('history_flaky_window') }}

),

per_query as (

    select
        series_id,
        agent,
        query_id,
        min(query_text) as query_text,
        count(*) as n_recent_sets,
        count(*) filter (where flakiness_class = 'flaky') as n_flaky_sets,
        sum(n_runs) as n_runs,
        sum(n_pass) as n_pass,
        string_agg(
            set_id, ', ' order by set_seq
        ) filter (where flakiness_class = 'flaky') as flaky_set_ids,
        bool_or(is_latest and flakiness_class = 'flaky') as is_flaky_in_latest
    from recent
    group by series_id, agent, query_id

),

final as (

    select
        series_id,
        agent,
        query_id,
        query_text,
        cast(n_recent_sets as bigint) as n_recent_sets,
        cast(n_flaky_sets as bigint) as n_flaky_sets,
        cast(n_runs as bigint) as n_runs,
        cast(n_pass as bigint) as n_pass,
        n_pass / n_runs as pass_rate,
        coalesce(is_flaky_in_latest, false) as is_flaky_in_latest,
        flaky_set_ids
    from per_query
    where n_flaky_sets >= {{ var('history_flaky_min_sets') }}

)

select * from final
