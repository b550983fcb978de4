{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per item of each
-- OpenAI Evals run judged by its headline scorer (match when the run has
-- match events, else its first scorer by name: openai_evals_runs): query
-- = sample id, round = the event's order in the sample (evals has no
-- epochs), so flips pair the same sample and event across nights. Status:
-- error (the sample recorded an error event), empty (no answer), ok.
with

items as (

    select * from {{ ref('openai_evals_item_scores') }}

),

runs as (

    select * from {{ ref('openai_evals_runs') }}

),

judged_by as (

    select
        set_id,
        headline_scorer as scorer
    from runs

),

final as (

    {{ imported_history_items(
        'openai_evals',
        fail_detail="coalesce(items.explanation, 'expected: ' || items.target)"
    ) }}

)

select * from final
