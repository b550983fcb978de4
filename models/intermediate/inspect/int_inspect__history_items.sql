{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per sample record
-- (id, epoch) of each Inspect AI log, judged by the log's headline scorer
-- (else its first scorer by name): query = sample id, round = epoch, so
-- flips pair the same sample and epoch across nights and pass@k / pass^k
-- count a sample's epochs. Status: error (the sample errored), empty (no
-- answer), ok; the pass verdict is the scorer's (seed inspect_pass_rules).
with

items as (

    select * from {{ ref('inspect_item_scores') }}

),

runs as (

    select * from {{ ref('inspect_runs') }}

),

first_scorers as (

    select
        set_id,
        min(scorer) as scorer
    from items
    group by set_id

),

judged_by as (

    select
        first_scorers.set_id,
        coalesce(runs.headline_scorer, first_scorers.scorer) as scorer
    from first_scorers
    inner join runs
        on first_scorers.set_id = runs.set_id

),

final as (

    select
        'inspect' as agent,
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
        items.explanation as fail_detail,
        items.is_pass
    from items
    inner join judged_by
        on
            items.set_id = judged_by.set_id
            and items.scorer = judged_by.scorer

)

select * from final
