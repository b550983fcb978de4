{{ config(materialized='set_incremental', kind='resume_agent') }}
-- One row per (set, track): the mean over rounds of the per-track round
-- results, latency seconds and score per track, and consistency per track.
with

round_tracks as (

    select * from {{ unbuilt(ref('resume_round_track_scores')) }}

),

pairs as (

    select * from {{ unbuilt(ref('resume_consistency_pairs')) }}

),

track_means as (

    select
        set_id,
        file_sha256,
        track,
        any_value(latency_rubric) as latency_rubric,
        sum(n_items) as n_items,
        count(*) as n_rounds,
        {{ exact_avg('intent_score') }} as intent_score,
        {{ exact_avg('accuracy_score') }} as accuracy_score,
        {{ exact_avg('stability_score') }} as stability_score,
        {{ exact_avg('latency_sec') }} as latency_sec,
        {{ exact_avg('latency_score') }} as latency_score
    from round_tracks
    group by set_id, file_sha256, track

),

track_round_pairs as (

    select
        set_id,
        track,
        round_a,
        round_b,
        count(*) as n_pairs,
        count(*) filter (where outcome = 'both_pass') as n_both_pass,
        count(*) filter (where outcome = 'both_fail') as n_both_fail,
        count(*) filter (where outcome = 'mismatch') as n_mismatch
    from pairs
    group by set_id, track, round_a, round_b

),

track_consistency as (

    select
        set_id,
        track,
        sum(n_pairs) as n_pairs,
        sum(n_both_pass) as n_both_pass,
        sum(n_both_fail) as n_both_fail,
        sum(n_mismatch) as n_mismatch,
        {{ exact_avg(
            var('score_max') ~ ' * (n_both_pass + n_both_fail) / n_pairs'
        ) }} as consistency_score
    from track_round_pairs
    group by set_id, track

),

final as (

    select
        track_means.set_id,
        track_means.file_sha256,
        track_means.track,
        track_means.latency_rubric,
        cast(track_means.n_items as bigint) as n_items,
        track_means.n_rounds,
        track_means.intent_score,
        track_means.accuracy_score,
        track_means.stability_score,
        track_consistency.consistency_score,
        track_means.latency_sec,
        track_means.latency_score,
        cast(coalesce(track_consistency.n_pairs, 0) as bigint) as n_pairs,
        cast(coalesce(track_consistency.n_both_pass, 0) as bigint)
            as n_both_pass,
        cast(coalesce(track_consistency.n_both_fail, 0) as bigint)
            as n_both_fail,
        cast(coalesce(track_consistency.n_mismatch, 0) as bigint)
            as n_mismatch
    from track_means
    left join track_consistency
        on
            track_means.set_id = track_consistency.set_id
            and track_means.track = track_consistency.track

)

select * from final
