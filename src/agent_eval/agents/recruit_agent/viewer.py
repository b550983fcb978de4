"""The recruit agent's pages in the web viewer: the item table, the item
pages with each accuracy check, and the distributions (agent_eval.viewer's
item pages, driven by ITEM_TABLE)."""

from __future__ import annotations

from agent_eval.viewer.parts import ITEM_SORTS, ItemTable

ITEM_TABLE = ItemTable(
    table="marts.recruit_item_scores",
    segment="latency_class",
    segment_label="latency class",
    segment_choices_sql=(
        "select latency_class, latency_class from rubric.recruit_latency_classes order by latency_class"
    ),
    rounds_table="marts.recruit_round_scores",
    sorts=ITEM_SORTS,
    score_histogram="marts.rpt_recruit_score_histogram",
    latency_histogram="marts.rpt_recruit_latency_histogram",
    rounds_sql=(
        "select round, n_items, intent_score, accuracy_score, stability_score, latency_score "
        "from marts.recruit_round_scores where set_id = ? order by round_order"
    ),
    latency_sql=(
        "select latency_class as segment, latency_score, n_items from marts.recruit_latency_distribution "
        "where set_id = ? order by latency_class, latency_score desc"
    ),
    latency_label="latency class",
    checks_sql=(
        "select check_seq, check_source, check_name, check_path, check_op, check_value, actual_value, "
        "is_passed, reason, reason_detail, n_matches from marts.recruit_check_results "
        "where set_id = ? and line_number = ? order by check_seq"
    ),
)
