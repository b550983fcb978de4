"""The resume agent's pages in the web viewer: the item table, the item
pages and the distributions (agent_eval.viewer's item pages, driven by
ITEM_TABLE)."""

from __future__ import annotations

from agent_eval.viewer.parts import ITEM_SORTS, ItemTable

ITEM_TABLE = ItemTable(
    table="marts.resume_item_scores",
    segment="track",
    segment_label="Track",
    # the track's label of the seed (`Track 1`), as the reports write it
    segment_choices_sql="select track, track_label from rubric.resume_track_rubrics order by track",
    rounds_table="marts.resume_round_scores",
    sorts=ITEM_SORTS,
    score_histogram="marts.rpt_resume_score_histogram",
    latency_histogram="marts.rpt_resume_latency_histogram",
    rounds_sql=(
        "select round, n_items, n_ok, n_partial, n_error, n_empty, intent_score, accuracy_score, "
        "stability_score, latency_score from marts.resume_round_scores where set_id = ? order by round_order"
    ),
    latency_sql=(
        "select latency_rubric as segment, latency_score, n_items from marts.resume_latency_distribution "
        "where set_id = ? and scope = 'set' order by latency_rubric, latency_score desc"
    ),
    latency_label="rubric",
    status_counts=True,
)
