{{ config(materialized='ephemeral') }}
-- The agent interface (docs/adding-an-agent.md): one row per instance
-- record (sample, epoch) of each Every Eval Ever aggregate, judged by its
-- headline scorer (the first evaluation result's; else the first scorer
-- its lines name): query = sample id, round = epoch, so flips pair the
-- same sample and epoch across nights. Status: error (the line has an
-- error), empty (no answer), ok; the pass verdict is the file's own
-- (evaluation.is_correct).
with

items as (

    select * from {{ ref('every_eval_ever_item_scores') }}

),

runs as (

    select * from {{ ref('every_eval_ever_runs') }}

),

item_scorers as (

    select
        set_id,
        min(scorer) as first_scorer,
        list(distinct scorer) as scorers
    from items
    group by set_id

),

judged_by as (

    select
        item_scorers.set_id,
        case
            when list_contains(item_scorers.scorers, runs.headline_scorer)
                then runs.headline_scorer
            else item_scorers.first_scorer
        end as scorer
    from item_scorers
    inner join runs
        on item_scorers.set_id = runs.set_id

),

final as (

    {{ imported_history_items('every_eval_ever') }}

)

select * from final
