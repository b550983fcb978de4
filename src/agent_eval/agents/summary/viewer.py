"""The summary agent's set page in the web viewer (source doc 004 8.3):
metric cards with thresholds, the cases filtered by a failed metric or a
tag, the LLM review queue and the rule snapshot. Its two tables download
as CSV and Parquet (DOWNLOADS: the page's query and filters, through
agent_eval.viewer.downloads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_eval import db
from agent_eval.db import Cursor, one, rows
from agent_eval.viewer.parts import MAX_QUERY_CHARS, BadRequest, Table, parse_choice, pretty_json, set_in

TEMPLATE = "set_summary.html"

SUMMARY_METRICS = ("summary_accuracy", "summary_risk_coverage", "summary_non_definitive", "summary_needs_followup")


# the review queue of a set (one ?: the set)
QUEUE_SQL = (
    "select case_id, metric, review_reason, rule_score, llm_score, final_score, judge_status, judge_model, "
    "n_judge_attempts, n_judge_failures, last_judge_error from marts.summary_review_queue "
    "where set_id = ? order by case_id, metric"
)


def cases_query(set_id: str, args: Any) -> tuple[str, list[Any], dict[str, Any]]:
    """The case table's query, its parameters and filters (below: a metric
    the case fails, tag: one of its tags), checked: the page and its
    download both run it."""
    below = parse_choice(args.get("below"), "below", SUMMARY_METRICS)
    tag = (args.get("tag") or "").strip()
    if len(tag) > MAX_QUERY_CHARS:
        raise BadRequest(f"tag must be at most {MAX_QUERY_CHARS} characters")
    where, params = ["set_id = ?"], [set_id]
    if below:
        where.append(f"not is_{below}_pass")
    if tag:
        where.append("list_contains(string_split(coalesce(summary_tags, ''), ', '), ?)")
        params.append(tag)
    sql = (
        "select case_id, summary_accuracy, summary_risk_coverage, summary_non_definitive, "
        "summary_needs_followup, is_all_pass, n_failed_metrics, summary_tags, missing_tags, "
        "unsupported_entities, question, answer "
        f"from marts.summary_case_scores where {' and '.join(where)} order by case_index"
    )
    return sql, params, {"below": below, "tag": tag}


def set_page(cur: Cursor, set_id: str, args: dict[str, str]) -> dict[str, Any]:
    """The set page's context (TEMPLATE)."""
    cases_sql, cases_params, state = cases_query(set_id, args)
    scores = one(cur, "select * from marts.summary_set_scores where set_id = ?", [set_id]) or {}
    cards = rows(
        cur,
        "select metric, metric_label, n_cases, mean_score, mean_rule_score, threshold, threshold_source, "
        "n_pass, pass_rate, is_below_threshold, warning, n_review_cases, n_judged_cases "
        "from marts.summary_set_metrics where set_id = ? order by metric_order",
        [set_id],
    )
    cases = rows(cur, cases_sql, cases_params)
    tags = [
        r[0]
        for r in db.fetch(
            cur,
            "select distinct unnest(string_split(summary_tags, ', ')) as tag from marts.summary_case_scores "
            "where set_id = ? and summary_tags <> '' order by tag",
            [set_id],
        )[1]
    ]
    queue = rows(cur, QUEUE_SQL, [set_id])
    snapshot, _ = pretty_json(scores.get("rule_snapshot"))
    return {
        "scores": scores,
        "cards": cards,
        "cases": cases,
        "tags": tags,
        "queue": queue,
        "rule_snapshot": snapshot,
        "state": state,
        "metric_names": SUMMARY_METRICS,
    }


def summary_set(cur: Cursor, set_id: str | None) -> str:
    """The summary set of a download's ``id``."""
    return set_in(cur, "marts.summary_set_scores", set_id, "summary set")


def download_cases(cur: Cursor, args: Any) -> Table:
    """The case table, its filters applied: every case the page lists."""
    set_id = summary_set(cur, args.get("id"))
    sql, params, _ = cases_query(set_id, args)
    return Table(sql, params, f"cases_{set_id}")


def download_queue(cur: Cursor, args: Any) -> Table:
    set_id = summary_set(cur, args.get("id"))
    return Table(QUEUE_SQL, [set_id], f"review_queue_{set_id}")


# the set page's tables, by the name of their download (/download/<name>.<csv|parquet>)
DOWNLOADS: dict[str, Callable[[Cursor, Any], Table]] = {
    "summary_cases": download_cases,
    "summary_review_queue": download_queue,
}
