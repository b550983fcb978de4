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

    {{ imported_history_items('inspect') }}

)

select * from final
