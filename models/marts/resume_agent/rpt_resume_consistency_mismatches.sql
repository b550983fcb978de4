{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ delete_replaced_sets() }}",
) }}
-- depends_on: {{ ref('int_sets__current') }}
{%- set unbuilt = is_unbuilt_set(kind='resume_agent') %}
-- One row per (set, query, round pair) whose two runs disagree (outcome
-- mismatch), with the question as the first round asked it: the report's
-- "반복 재현 필요 질문" table.
with

pairs as (

    select * from {{ ref('resume_consistency_pairs') }}
    where {{ unbuilt }}

),

items as (

    select * from {{ ref('resume_item_scores') }}
    where {{ unbuilt }}

),

first_runs as (

    select
        set_id,
        query_id,
        round,
        any_value(query_text) as query_text
    from items
    where not is_duplicate
    group by set_id, query_id, round

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
        first_runs.query_text
    from pairs
    left join first_runs
        on
            pairs.set_id = first_runs.set_id
            and pairs.query_id = first_runs.query_id
            and pairs.round_a = first_runs.round
    where pairs.outcome = 'mismatch'

)

select * from final
