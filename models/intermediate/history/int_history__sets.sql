-- One row per current evaluation set of every registered agent, placed in
-- its series (each agent's int_<agent>__sets says what a series is: the
-- file name, or for engagement runs the ground truth they are scored
-- against). set_seq orders a series by drop date, then set id; the
-- baseline is the blessed set of seed history_baselines when it is earlier
-- in the series, else the previous set.
with

all_sets as (

    {{ agents_union('sets', [
        'set_id', 'agent', 'series_id', 'drop_date', 'set_version'
    ]) }}

),

blessed as (

    select * from {{ ref('history_baselines') }}

),

sequenced as (

    select
        *,
        row_number() over (
            partition by series_id order by drop_date, set_id
        ) as set_seq,
        count(*) over (partition by series_id) as n_sets_in_series,
        lag(set_id) over (
            partition by series_id order by drop_date, set_id
        ) as previous_set_id
    from all_sets

),

blessed_placed as (

    select
        blessed.series_id,
        blessed.baseline_set_id,
        sequenced.set_seq as baseline_set_seq
    from blessed
    inner join sequenced
        on
            blessed.series_id = sequenced.series_id
            and blessed.baseline_set_id = sequenced.set_id

),

final as (

    select
        sequenced.set_id,
        sequenced.agent,
        sequenced.series_id,
        sequenced.drop_date,
        sequenced.set_version,
        cast(sequenced.set_seq as bigint) as set_seq,
        cast(sequenced.n_sets_in_series as bigint) as n_sets_in_series,
        sequenced.set_seq = sequenced.n_sets_in_series as is_latest,
        sequenced.previous_set_id,
        case
            when blessed_placed.baseline_set_seq < sequenced.set_seq
                then cast(blessed_placed.baseline_set_id as varchar)
            else sequenced.previous_set_id
        end as baseline_set_id,
        case
            when blessed_placed.baseline_set_seq < sequenced.set_seq
                then 'blessed'
            when sequenced.previous_set_id is not null then 'previous'
        end as baseline_source
    from sequenced
    left join blessed_placed
        on sequenced.series_id = blessed_placed.series_id

)

select * from final
