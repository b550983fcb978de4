{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, item score, bin) with items: the histogram of the
-- intent, accuracy and stability scores of the set's items (0 to
-- score_max in score_histogram_bins equal bins), as the report's chart
-- draws it.
with

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

observations as (

    select
        items.set_id,
        items.file_sha256,
        scores.series,
        scores.score
    from items
    cross join
        lateral (
            values
            ('intent_score', items.intent_score),
            ('accuracy_score', items.accuracy_score),
            ('stability_score', items.stability_score)
        ) as scores (series, score)

),

final as (

    {{ score_histogram('observations', 'item') }}

)

select * from final
