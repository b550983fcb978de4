"""The engagement agent's pages in the web viewer: a run's page (expected
against actual, per metric and persona) and the page of every run, linked
from the navigation bar."""

from __future__ import annotations

from typing import Any

from agent_eval.agents.engagement.report import PERSONA_LIMIT, SHOWN_PERSONAS
from agent_eval.db import Cursor, one, rows
from agent_eval.viewer.parts import NotFound

TEMPLATE = "set_engagement.html"
INDEX_TEMPLATE = "engagement.html"
# the navigation bar's link to the index page
INDEX_TITLE = "좋아요/댓글 Engagement"


def index_page(cur: Cursor) -> dict[str, Any]:
    """The context of the page of every engagement run (INDEX_TEMPLATE)."""
    return {
        "runs": rows(
            cur,
            "select set_id, drop_date, run_id, evaluation_state, n_personas, total_acts, overall_similarity, "
            "interpretation_band, interpretation_label, interpretation_label_en, n_rejected_lines "
            "from marts.engagement_run_scores order by drop_date desc, run_id",
        )
    }


def set_page(cur: Cursor, set_id: str, args: dict[str, str]) -> dict[str, Any]:
    """The set page's context (TEMPLATE): the run, its metrics, its personas."""
    run = one(cur, "select * from marts.engagement_run_scores where set_id = ?", [set_id])
    if run is None:
        raise NotFound(f"no engagement run in set {set_id!r}")
    metrics = rows(
        cur,
        "select metric, metric_kind, expected_value, actual_value, abs_error, relative_error, similarity, weight "
        "from marts.engagement_run_metrics where set_id = ? order by metric_order",
        [set_id],
    )
    personas = rows(
        cur,
        "select persona, in_logs, in_expected, total_acts, like_count, comment_count, overall_similarity, "
        "interpretation_band, interpretation_label from marts.engagement_persona_scores "
        f"where set_id = ? and persona in ({SHOWN_PERSONAS}) order by persona",
        [set_id, set_id],
    )
    by_persona: dict[str, list[dict[str, Any]]] = {}
    for row in rows(
        cur,
        "select persona, metric, expected_value, actual_value, similarity, weight "
        "from marts.engagement_persona_metrics where set_id = ? "
        f"and persona in ({SHOWN_PERSONAS}) order by persona, metric_order",
        [set_id, set_id],
    ):
        by_persona.setdefault(row["persona"], []).append(row)
    for p in personas:
        p["metrics"] = by_persona.get(p["persona"], [])
    return {
        "run": run,
        "run_metrics": metrics,
        "personas": personas,
        "persona_limit": PERSONA_LIMIT,
        "n_personas": one(cur, "select count(*) as n from marts.engagement_persona_scores where set_id = ?", [set_id])[
            "n"
        ],
    }
