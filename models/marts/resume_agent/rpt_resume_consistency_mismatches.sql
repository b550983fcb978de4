{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets() }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
{%- set unbuilt = is_unbuilt_set(kind='resume_agent') %}
-- One row per (set, query, round pair) whose two runs disagree (outcome
-- mismatch), with the question as the first round asked it (its one row
-- that is not a duplicate: is_duplicate marks every later row of a (query,
-- round)): the report's "반복 재현 필요 질문" table.
with

pairs as (

    select * from {{ ref('resume_consistency_pairs') }}
    where {{ unbuilt }}

),

items as (

    select * from {{ ref('resume_item_scores') }}
    where {{ unbuilt }}

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
