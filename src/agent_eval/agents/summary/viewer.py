"""The summary agent's set page in the web viewer (source doc 004 8.3):
metric cards with thresholds, the cases filtered by a failed metric or a
tag, the LLM review queue and the rule snapshot."""

from __future__ import annotations

from typing import Any

from agent_eval import db
from agent_eval.db import Cursor, one, rows
from agent_eval.viewer.parts import MAX_QUERY_CHARS, BadRequest, parse_choice, pretty_json

TEMPLATE = "set_summary.html"

SUMMARY_METRICS = ("summary_accuracy", "summary_risk_coverage", "summary_non_definitive", "summary_needs_followup")


def set_page(cur: Cursor, set_id: str, args: dict[str, str]) -> dict[str, Any]:
    """The set page's context (TEMPLATE)."""
    below = parse_choice(args.get("below"), "below", SUMMARY_METRICS)
    tag = (args.get("tag") or "").strip()
    if len(tag) > MAX_QUERY_CHARS:
        raise BadRequest(f"tag must be at most {MAX_QUERY_CHARS} characters")
    scores = one(cur, "select * from marts.summary_set_scores where set_id = ?", [set_id]) or {}
    cards = rows(
        cur,
        "select metric, metric_label, n_cases, mean_score, mean_rule_score, threshold, threshold_source, "
        "n_pass, pass_rate, is_below_threshold, warning, n_review_cases, n_judged_cases "
        "from marts.summary_set_metrics where set_id = ? order by metric_order",
        [set_id],
    )
    where, params = ["set_id = ?"], [set_id]
    if below:
        where.append(f"not is_{below}_pass")
    if tag:
        where.append("list_contains(string_split(coalesce(summary_tags, ''), ', '), ?)")
        params.append(tag)
    cases = rows(
        cur,
        "select case_id, summary_accuracy, summary_risk_coverage, summary_non_definitive, "
        "summary_needs_followup, is_all_pass, n_failed_metrics, summary_tags, missing_tags, "
        "unsupported_entities, question, answer "
        f"from marts.summary_case_scores where {' and '.join(where)} order by case_index",
        params,
    )
    tags = [
        r[0]
        for r in db.fetch(
            cur,
            "select distinct unnest(string_split(summary_tags, ', ')) as tag from marts.summary_case_scores "
            "where set_id = ? and summary_tags <> '' order by tag",
            [set_id],
        )[1]
    ]
    queue = rows(
        cur,
        "select case_id, metric, review_reason, rule_score, llm_score, final_score, judge_status, judge_model, "
        "n_judge_attempts, n_judge_failures, last_judge_error from marts.summary_review_queue "
        "where set_id = ? order by case_id, metric",
        [set_id],
    )
    snapshot, _ = pretty_json(scores.get("rule_snapshot"))
    return {
        "scores": scores,
        "cards": cards,
        "cases": cases,
        "tags": tags,
        "queue": queue,
        "rule_snapshot": snapshot,
        "state": {"below": below, "tag": tag},
        "metric_names": SUMMARY_METRICS,
    }
