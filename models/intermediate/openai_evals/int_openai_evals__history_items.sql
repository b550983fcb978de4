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

final as (

    select
        'openai_evals' as agent,
        items.set_id,
        items.file_sha256,
        items.line_number,
        items.sample_id as query_id,
        cast(items.epoch as varchar) as round,
        items.epoch as round_order,
        items.scorer as segment,
        case
            when items.error is not null then 'error'
            when coalesce(trim(items.completion), '') = '' then 'empty'
            else 'ok'
        end as status,
        false as is_duplicate,
        cast(null as double) as accuracy_score,
        cast(null as double) as stability_score,
        items.latency_sec,
        cast(null as double) as latency_score,
        items.input as query_text,
        items.completion as assistant_message,
        items.error as error_message,
        coalesce(items.explanation, 'expected: ' || items.target)
            as fail_detail,
        items.is_pass
    from items
    inner join runs
        on
            items.set_id = runs.set_id
            and items.scorer = runs.headline_scorer

)

select * from final
