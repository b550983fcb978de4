-- One row per scorable line of the current version of each recruit set,
-- with the item scores of SPEC 4.2: intent (verdict map, status fallback),
-- accuracy (check pass ratio -> band), intent_label (given or derived by
-- keyword rules), ui_signature, latency by class, stability.
with

items as (

    select * from {{ ref('int_recruit_agent__items_current') }}

),

checks as (

    select * from {{ ref('int_recruit_agent__checks_evaluated') }}

),

signatures as (

    select * from {{ ref('int_recruit_agent__ui_signatures') }}

),

verdicts as (

    select * from {{ ref('recruit_intent_verdicts') }}

),

status_scores as (

    select * from {{ ref('status_scores') }}

),

intent_labels as (

    select * from {{ ref('recruit_intent_labels') }}

),

intent_keywords as (

    select
        intent_label,
        {{ nfc('keyword') }} as keyword
    from {{ ref('recruit_intent_keywords') }}

),

latency_classes as (

    select * from {{ ref('recruit_latency_classes') }}

),

latency_rubric as (

    select * from {{ ref('latency_rubric') }}

),

accuracy_bands as (

    select * from {{ ref('recruit_accuracy_bands') }}

),

latency_bands as (

    {{ latency_bands('latency_rubric') }}

),

check_counts as (

    select
        set_id,
        line_number,
        any_value(check_source) as check_source,
        count(*) as n_checks,
        count(*) filter (where is_passed) as n_checks_passed,
        count(*) filter (where reason = 'invalid_check') as n_checks_invalid
    from checks
    group by set_id, line_number

),

keyword_labels as (

    -- the first keyword rule (by rule_order) whose keyword is in the message
    select
        items.set_id,
        items.line_number,
        arg_min(intent_labels.intent_label, intent_labels.rule_order)
            as keyword_label
    from items
    inner join intent_keywords
        on contains(items.assistant_message, intent_keywords.keyword)
    inner join intent_labels
        on intent_keywords.intent_label = intent_labels.intent_label
    group by items.set_id, items.line_number

),

---------- intent and intent_label

intent as (

    select
        items.*,
        status_scores.stability_score,
        verdicts.intent_score as verdict_intent_score,
        status_scores.intent_score as status_intent_score,
        case
            when {{ is_blank('items.intent_verdict_raw') }} then 'missing'
            when verdicts.intent_verdict is null then 'invalid'
            else 'given'
        end as intent_verdict_state,
        case
            when {{ is_blank('items.intent_label_raw') }} then 'missing'
            when items.intent_label_raw in (
                select il.intent_label from intent_labels as il
            ) then 'given'
            else 'invalid'
        end as intent_label_state,
        -- SPEC 4.2 rule order: error, clarification, keywords, other
        case
            when items.status = 'error' then 'ERROR'
            when items.status = 'partial' then 'CLARIFY'
            else coalesce(keyword_labels.keyword_label, 'OTHER')
        end as derived_intent_label
    from items
    inner join status_scores
        on items.status = status_scores.status
    left join verdicts
        on items.intent_verdict_raw = verdicts.intent_verdict
    left join keyword_labels
        on
            items.set_id = keyword_labels.set_id
            and items.line_number = keyword_labels.line_number

),

---------- accuracy

accuracy as (

    select
        intent.*,
        coalesce(check_counts.check_source, 'none') as check_source,
        coalesce(check_counts.n_checks, 0) as n_checks,
        coalesce(check_counts.n_checks_passed, 0) as n_checks_passed,
        coalesce(check_counts.n_checks_invalid, 0) as n_checks_invalid,
        check_counts.n_checks_passed::double
        / nullif(check_counts.n_checks, 0) as accuracy_ratio,
        case
            when intent.has_item_error or intent.has_raw_error then 'error'
            when intent.raw_json_state <> 'valid' then 'raw_unparseable'
            when coalesce(check_counts.n_checks, 0) = 0 then 'no_checks'
            else 'checks'
        end as accuracy_reason
    from intent
    left join check_counts
        on
            intent.set_id = check_counts.set_id
            and intent.line_number = check_counts.line_number

),

---------- latency

latency as (

    select
        accuracy.*,
        -- SPEC 4.2: a missing latencyClass is SINGLE; an unknown one too
        -- (flagged by latency_class_state)
        coalesce(latency_classes.latency_class, 'SINGLE') as latency_class,
        case
            when {{ is_blank('accuracy.latency_class_raw') }} then 'missing'
            when latency_classes.latency_class is null then 'invalid'
            else 'given'
        end as latency_class_state,
        coalesce(
            accuracy.response_time_sec, accuracy.latency_ms / 1000.0
        ) as latency_sec,
        case
            when accuracy.response_time_sec is not null
                then 'response_time_sec'
            when accuracy.latency_ms is not null then 'latency_ms'
            else 'missing'
        end as latency_source
    from accuracy
    left join latency_classes
        on accuracy.latency_class_raw = latency_classes.latency_class

),

scored as (

    select
        latency.*,
        rubric_classes.latency_rubric,
        signatures.ui_signature,
        case
            when latency.intent_verdict_state = 'given'
                then latency.verdict_intent_score
            else latency.status_intent_score
        end as intent_score,
        case
            when latency.intent_verdict_state = 'given' then 'verdict'
            else 'status'
        end as intent_source,
        case
            when latency.intent_label_state = 'given'
                then latency.intent_label_raw
            else latency.derived_intent_label
        end as intent_label,
        case
            when latency.intent_label_state = 'given' then 'given'
            else 'derived'
        end as intent_label_source,
        case
            when latency.accuracy_reason = 'checks'
                then (
                    select ab.score
                    from accuracy_bands as ab
                    where
                        latency.accuracy_ratio > ab.min_ratio
                        or (
                            ab.is_min_inclusive
                            and latency.accuracy_ratio = ab.min_ratio
                        )
                    order by ab.band_order
                    limit 1
                )
            else 0
        end as accuracy_score,
        -- SPEC 4.2: a missing latency scores 0
        coalesce(latency_bands.latency_score, 0) as latency_score
    from latency
    inner join latency_classes as rubric_classes
        on latency.latency_class = rubric_classes.latency_class
    left join signatures
        on
            latency.set_id = signatures.set_id
            and latency.line_number = signatures.line_number
    left join latency_bands
        on
            rubric_classes.latency_rubric = latency_bands.latency_rubric
            and (
                latency_bands.lower_bound_sec is null
                or latency.latency_sec > latency_bands.lower_bound_sec
            )
            and (
                latency_bands.upper_bound_sec is null
                or latency.latency_sec <= latency_bands.upper_bound_sec
            )

),

final as (

    select
        ---------- ids
        set_id,
        file_sha256,
        source_file,
        drop_date,
        line_number,
        run_id,
        item_id,
        query_id,
        round,
        round_order,
        category,
        ---------- status (SPEC 3.2 rules)
        status,
        status_reason,
        raw_json_state,
        raw_json_valid,
        has_item_error,
        has_raw_error,
        coalesce(item_error_text, raw_error_text) as error_message,
        ---------- intent
        intent_verdict_raw as intent_verdict,
        intent_verdict_state,
        intent_source,
        intent_score,
        ---------- accuracy
        check_source,
        n_checks,
        n_checks_passed,
        n_checks_invalid,
        accuracy_ratio,
        accuracy_reason,
        accuracy_score,
        ---------- consistency inputs
        intent_label,
        intent_label_source,
        intent_label_state,
        intent_label_raw,
        ui_signature,
        n_data_ui,
        ---------- latency
        latency_class,
        latency_class_state,
        latency_class_raw,
        latency_source,
        latency_sec,
        latency_rubric,
        latency_score,
        ---------- stability
        stability_score,
        ---------- text
        query_text,
        expected_result,
        assistant_message,
        raw_json,
        loaded_at
    from scored

)

select * from final
