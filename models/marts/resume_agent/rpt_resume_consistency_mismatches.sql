{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, query, round pair) whose two runs disagree (outcome
-- mismatch), with the question as the first round asked it (its one row
-- that is not a duplicate: is_duplicate marks every later row of a (query,
-- round)): the report's "반복 재현 필요 질문" table.
with

pairs as (

    select * from {{ unbuilt(ref('resume_consistency_pairs')) }}

),

items as (

    select * from {{ unbuilt(ref('resume_item_scores')) }}

),

final as (

    select
        pairs.set_id,
        pairs.file_sha256,
        pairs.query_id,
        pairs.track,
        pairs.round_a,
        pairs.round_b,
        pairs.status_a,
        pairs.status_b,
        items.query_text
    from pairs
    left join items
        on
            pairs.set_id = items.set_id
            and pairs.query_id = items.query_id
            and pairs.round_a = items.round
            and not items.is_duplicate
    where pairs.outcome = 'mismatch'

)

select * from final
