-- One row per (Inspect AI log, sample id, scorer): the sample's value
-- reduced over its epochs with the reducer the log names for the scorer
-- (its results; else the log's epochs reducer; mean by default; macro
-- inspect_reduce), as Inspect reduces before it computes a metric.
-- Unscored epochs are left out; a sample with no scored epoch reduces to
-- null (unscored). A view: readers filter by set.
with

items as (

    select * from {{ ref('inspect_item_scores') }}

),

logs as (

    select * from {{ ref('int_inspect__logs_current') }}

),

reported_scores as (

    select * from {{ ref('int_inspect__reported_scores') }}

),

log_reducers as (

    select
        set_id,
        scorer,
        min(reducer) as reducer
    from reported_scores
    group by set_id, scorer

),

with_reducer as (

    select
        items.set_id,
        items.file_sha256,
        items.sample_id,
        items.scorer,
        items.epoch,
        items.value,
        coalesce(log_reducers.reducer, logs.epochs_reducer, 'mean')
            as reducer
    from items
    inner join logs
        on items.set_id = logs.set_id
    left join log_reducers
        on
            items.set_id = log_reducers.set_id
            and items.scorer = log_reducers.scorer

),

final as (

    select
        set_id,
        file_sha256,
        sample_id,
        scorer,
        reducer,
        count(*) as n_epochs,
        count(value) as n_scored_epochs,
        {{ inspect_reduce('reducer', 'value') }} as reduced_value
    from with_reducer
    group by set_id, file_sha256, sample_id, scorer, reducer

)

select * from final
