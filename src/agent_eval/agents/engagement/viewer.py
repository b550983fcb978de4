"""The engagement agent's pages in the web viewer: a run's page (expected
against actual, per metric and persona) and the page of every run, linked
from the navigation bar. Their tables download as CSV and Parquet
(DOWNLOADS: the pages' queries, through agent_eval.viewer.downloads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_eval.agents.engagement.report import PERSONA_LIMIT, SHOWN_PERSONAS
from agent_eval.db import Cursor, one, rows
from agent_eval.viewer.parts import NotFound, Table, set_in

TEMPLATE = "set_engagement.html"
INDEX_TEMPLATE = "engagement.html"
# the navigation bar's link to the index page
INDEX_TITLE = "좋아요/댓글 Engagement"

RUNS_SQL = (
    "select set_id, drop_date, run_id, evaluation_state, n_personas, total_acts, overall_similarity, "
    "interpretation_band, interpretation_label, interpretation_label_en, n_rejected_lines "
    "from marts.engagement_run_scores order by drop_date desc, run_id"
)
# the runs that have a set page (the viewer finds a set by its metrics)
PAGED_SQL = "select distinct set_id from marts.history_set_metrics where agent = 'engagement'"
# a run's expected against actual, per metric (one ?: the set)
RUN_METRICS_SQL = (
    "select metric, metric_kind, expected_value, actual_value, abs_error, relative_error, similarity, weight "
    "from marts.engagement_run_metrics where set_id = ? order by metric_order"
)
PERSONA_COLUMNS = (
    "persona, in_logs, in_expected, total_acts, like_count, comment_count, overall_similarity, "
    "interpretation_band, interpretation_label"
)
PERSONA_METRIC_COLUMNS = "persona, metric, expected_value, actual_value, similarity, weight"


def personas_sql(shown: bool) -> str:
    """A run's personas in persona order: the PERSONA_LIMIT the page shows
    (two ?: the set, twice) or, for the download, every one (one ?)."""
    where = f"set_id = ? and persona in ({SHOWN_PERSONAS})" if shown else "set_id = ?"
    return f"select {PERSONA_COLUMNS} from marts.engagement_persona_scores where {where} order by persona"


def persona_metrics_sql(shown: bool) -> str:
    """Each persona's expected against actual per metric (as personas_sql)."""
    where = f"set_id = ? and persona in ({SHOWN_PERSONAS})" if shown else "set_id = ?"
    return (
        f"select {PERSONA_METRIC_COLUMNS} from marts.engagement_persona_metrics where {where} "
        "order by persona, metric_order"
    )


def index_page(cur: Cursor) -> dict[str, Any]:
    """The context of the page of every engagement run (INDEX_TEMPLATE).
    A run has a set page only when it has metrics (a run without expected
    answers has none): only those runs are linked."""
    paged = {r["set_id"] for r in rows(cur, PAGED_SQL)}
    return {"runs": rows(cur, RUNS_SQL), "paged": paged}


def set_page(cur: Cursor, set_id: str, args: dict[str, str]) -> dict[str, Any]:
    """The set page's context (TEMPLATE): the run, its metrics, its personas."""
    run = one(cur, "select * from marts.engagement_run_scores where set_id = ?", [set_id])
    if run is None:
        raise NotFound(f"no engagement run in set {set_id!r}")
    metrics = rows(cur, RUN_METRICS_SQL, [set_id])
    personas = rows(cur, personas_sql(shown=True), [set_id, set_id])
    by_persona: dict[str, list[dict[str, Any]]] = {}
    for row in rows(cur, persona_metrics_sql(shown=True), [set_id, set_id]):
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


def engagement_set(cur: Cursor, set_id: str | None) -> str:
    """The engagement run of a download's ``id``."""
    return set_in(cur, "marts.engagement_run_scores", set_id, "engagement run")


def download_runs(cur: Cursor, args: Any) -> Table:
    return Table(RUNS_SQL, [], "engagement_runs")


def download_run_metrics(cur: Cursor, args: Any) -> Table:
    set_id = engagement_set(cur, args.get("id"))
    return Table(RUN_METRICS_SQL, [set_id], f"metrics_{set_id}")


def download_personas(cur: Cursor, args: Any) -> Table:
    """Every persona of the run (the page shows the PERSONA_LIMIT lowest)."""
    set_id = engagement_set(cur, args.get("id"))
    return Table(personas_sql(shown=False), [set_id], f"personas_{set_id}")


def download_persona_metrics(cur: Cursor, args: Any) -> Table:
    """The personas' expected against actual, one row per persona and metric."""
    set_id = engagement_set(cur, args.get("id"))
    return Table(persona_metrics_sql(shown=False), [set_id], f"persona_metrics_{set_id}")


# the pages' tables, by the name of their download (/download/<name>.<csv|parquet>)
DOWNLOADS: dict[str, Callable[[Cursor, Any], Table]] = {
    "engagement_runs": download_runs,
    "engagement_run_metrics": download_run_metrics,
    "engagement_personas": download_personas,
    "engagement_persona_metrics": download_persona_metrics,
}
