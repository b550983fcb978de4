-- One row per scorable record of the current version of each resume set:
-- status with its reason (SPEC 3.2) and item scores (3.3), row by row. The
-- set-level facts (round order, duplicates, SPEC 3.4) are added by the mart
-- resume_item_scores, which builds only unbuilt sets: no window or aggregate
-- here, so its literal set filter reaches the raw scan. Rejected records are
-- not here (see ops.rejected_rows).
with

items as (

    select * from {{ ref('stg_resume_agent__items') }}

),

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

track_rubrics as (

    select * from {{ ref('resume_track_rubrics') }}

),

status_scores as (

    select * from {{ ref('status_scores') }}

),

latency_rubric as (

    select * from {{ ref('latency_rubric') }}

),

latency_bands as (

    {{ latency_bands('latency_rubric') }}

),

current_items as (

    select
        current_sets.set_id,
        items.*
    from items
    inner join current_sets
        on
            items.source_file = current_sets.set_id
            and items.file_sha256 = current_sets.file_sha256
    where items.reject_reason is null

),

labelled as (

    select
        *,
        {{ status_reason(
            'error_text', 'raw_json_state', 'has_raw_error',
            'assistant_message', 'n_data_ui'
        ) }} as status_reason,
        try_cast(trim(llm_score_raw) as double) as llm_score_number
    from current_items

),

checked as (

    select
        *,
        {{ status_from_reason('status_reason') }} as status,
        case
            when {{ is_blank('llm_score_raw') }} then 'blank'
            when llm_score_number is null then 'not_a_number'
            when not (llm_score_number between 0 and {{ var('score_max') }})
                then 'out_of_range'
            else 'valid'
        end as llm_score_state
    from labelled

),

scored as (

    select
        checked.*,
        track_rubrics.latency_rubric,
        status_scores.is_pass,
        status_scores.stability_score,
        checked.llm_score_state = 'valid' as uses_llm_score,
        case
            when checked.llm_score_state = 'valid'
                then checked.llm_score_number
            else status_scores.intent_score
        end as intent_score,
        case
            when checked.llm_score_state = 'valid'
                then checked.llm_score_number
            else status_scores.accuracy_score
        end as accuracy_score,
        -- SPEC 3.3: a missing or invalid latency scores 0.
        coalesce(latency_bands.latency_score, 0) as latency_score
    from checked
    inner join track_rubrics
        on checked.track = track_rubrics.track
    inner join status_scores
        on checked.status = status_scores.status
    left join latency_bands
        on
            track_rubrics.latency_rubric = latency_bands.latency_rubric
            and (
                latency_bands.lower_bound_sec is null
                or checked.response_time_sec > latency_bands.lower_bound_sec
            )
            and (
                latency_bands.upper_bound_sec is null
                or checked.response_time_sec <= latency_bands.upper_bound_sec
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
        track,
        round,
        category,
        ---------- label
        status,
        status_reason,
        is_pass,
        case
            when uses_llm_score then 'llm' else 'heuristic'
        end as label_source,
        llm_score_state,
        llm_score_state in ('not_a_number', 'out_of_range')
            as is_llm_score_invalid,
        raw_json_valid,
        raw_json_state,
        ---------- scores
        intent_score,
        accuracy_score,
        stability_score,
        response_time_sec as latency_sec,
        latency_rubric,
        latency_score,
        ---------- text
        query_text,
        expected_result,
        assistant_message,
        response_text,
        raw_json,
        error_text,
        raw_error_text,
        n_data_ui,
        llm_status,
        llm_score_raw,
        llm_comment,
        loaded_at
    from scored

)

select * from final
