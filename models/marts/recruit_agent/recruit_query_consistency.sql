{{ config(materialized='set_incremental', kind='recruit_agent') }}
-- One row per (set, query): how reproducible repeated runs of the query are
-- (SPEC 4.3). ratio_a = share of the most common intent_label, ratio_b =
-- share of the most common ui_signature, consistency = (a + b) / 2 x 5;
-- a query run fewer than recruit_consistency_min_runs times scores 0.
with

items as (

    select * from {{ unbuilt(ref('recruit_item_scores')) }}

),

label_counts as (

    select
        set_id,
        query_id,
        intent_label,
        count(*) as n_rows
    from items
    group by set_id, query_id, intent_label

),

signature_counts as (

    select
        set_id,
        query_id,
        ui_signature,
        count(*) as n_rows
    from items
    group by set_id, query_id, ui_signature

),

label_modes as (

    -- ties: the first label in text order is shown; the ratio is the same
    select
        set_id,
        query_id,
        intent_label as mode_intent_label,
        n_rows as n_mode_intent_label,
        count(*) over (
            partition by set_id, query_id
        ) as n_distinct_intent_labels
    from label_counts
    qualify
        row_number() over (
            partition by set_id, query_id
            order by n_rows desc, intent_label asc
        ) = 1

),

signature_modes as (

    select
        set_id,
        query_id,
        ui_signature as mode_ui_signature,
        n_rows as n_mode_ui_signature,
        count(*) over (
            partition by set_id, query_id
        ) as n_distinct_ui_signatures
    from signature_counts
    qualify
        row_number() over (
            partition by set_id, query_id
            order by n_rows desc, ui_signature asc
        ) = 1

),

runs as (

    select
        set_id,
        file_sha256,
        query_id,
        count(*) as n_runs,
        count(distinct round) as n_rounds,
        arg_min(query_text, line_number) as query_text
    from items
    group by set_id, file_sha256, query_id

),

final as (

    select
        runs.set_id,
        runs.file_sha256,
        runs.query_id,
        runs.query_text,
        runs.n_runs,
        runs.n_rounds,
        runs.n_runs >= {{ var('recruit_consistency_min_runs') }} as is_scored,
        label_modes.n_distinct_intent_labels,
        label_modes.mode_intent_label,
        label_modes.n_mode_intent_label,
        signature_modes.n_distinct_ui_signatures,
        signature_modes.mode_ui_signature,
        signature_modes.n_mode_ui_signature,
        case
            when runs.n_runs >= {{ var('recruit_consistency_min_runs') }}
                then label_modes.n_mode_intent_label::double / runs.n_runs
        end as ratio_a,
        case
            when runs.n_runs >= {{ var('recruit_consistency_min_runs') }}
                then signature_modes.n_mode_ui_signature::double / runs.n_runs
        end as ratio_b,
        case
            when runs.n_runs >= {{ var('recruit_consistency_min_runs') }}
                then least(
                    greatest(
                        (
                            label_modes.n_mode_intent_label::double
                            + signature_modes.n_mode_ui_signature
                        )
                        / runs.n_runs / 2 * {{ var('score_max') }},
                        0
                    ),
                    {{ var('score_max') }}
                )
            else 0
        end as consistency_score
    from runs
    inner join label_modes
        on
            runs.set_id = label_modes.set_id
            and runs.query_id = label_modes.query_id
    inner join signature_modes
        on
            runs.set_id = signature_modes.set_id
            and runs.query_id = signature_modes.query_id

)

select * from final
