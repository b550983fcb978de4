{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per (set, series, bin) with observations: the histogram of the
-- items' accuracy scores, and of the queries' consistency scores, split
-- into queries run at least twice (consistency_scored) and queries run
-- once, which score 0 (consistency_single). 0 to score_max in
-- score_histogram_bins equal bins, as the report's charts draw them.
with

items as (

    select * from {{ unbuilt(ref('recruit_item_scores')) }}

),

queries as (

    select * from {{ unbuilt(ref('recruit_query_consistency')) }}

),

observations as (

    select
        set_id,
        file_sha256,
        'accuracy_score' as series,
        accuracy_score as score
    from items

    union all

    select
        set_id,
        file_sha256,
        case
            when is_scored then 'consistency_scored'
            else 'consistency_single'
        end as series,
        consistency_score as score
    from queries

),

final as (

    {{ score_histogram('observations', 'item') }}

)

select * from final
