"""Markdown reports rendered from the marts (jinja2 templates beside this file).

Numbers come from the marts as they are; this module only selects, orders,
formats and escapes. It computes no score. Each report links the PNG charts
that ``agent_eval.charts`` writes beside it (``<report stem>.<chart>.png``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import jinja2

from agent_eval import agents
from agent_eval.db import rows

TEMPLATES = Path(__file__).parent / "templates"


def _charts() -> Any:
    """The charts module, imported when a report is rendered (matplotlib
    costs about half a second: commands that render nothing skip it)."""
    from agent_eval import charts

    return charts


def md_cell(value: Any) -> str:
    """Text safe inside a markdown table cell: HTML escaped, pipes and
    backticks escaped (free text never opens a code span, where <br> and
    entities would show literally), line breaks as <br>, never
    empty-looking. Not for use inside a code span."""
    if value is None:
        return ""
    text = html.escape(str(value), quote=False)
    text = text.replace("|", "\\|").replace("`", "\\`")
    text = re.sub(r"\r\n|\r|\n", "<br>", text)
    return text.strip()


def fmt_num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def fmt_pct(value: Any) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["cell"] = md_cell
    env.filters["num"] = fmt_num
    env.filters["pct"] = fmt_pct
    return env


def selected(all_sets: list[str], set_ids: list[str] | None) -> list[str]:
    """The sets a renderer writes: all of its own, or those of ``set_ids``
    that are its own (``render_all`` reports ids that no renderer knows)."""
    return all_sets if set_ids is None else [s for s in all_sets if s in set_ids]


def report_path(reports_dir: Path, agent: str, set_id: str) -> Path:
    """Where the agent's renderer writes the report of ``set_id``."""
    return agents.BY_NAME[agent].report_path(reports_dir, set_id)


def resume_context(con: duckdb.DuckDBPyConnection, set_id: str) -> dict[str, Any]:
    one = [set_id]
    set_row = rows(con, "select * from marts.resume_set_scores where set_id = ?", one)[0]
    return {
        "s": set_row,
        "rounds": rows(con, "select * from marts.resume_round_scores where set_id = ? order by round_order", one),
        "round_tracks": rows(
            con,
            "select * from marts.resume_round_track_scores where set_id = ? order by round_order, track",
            one,
        ),
        "tracks": rows(con, "select * from marts.resume_set_track_scores where set_id = ? order by track", one),
        "round_pairs": rows(
            con,
            "select * from marts.resume_consistency_round_pairs where set_id = ? order by round_a_order, round_b_order",
            one,
        ),
        "distribution": rows(
            con,
            "select * from marts.resume_latency_distribution where set_id = ? "
            "order by scope = 'set', round_order, latency_rubric desc, latency_score desc",
            one,
        ),
        "risk_patterns": rows(
            con,
            "select status, status_reason, error_message, n_items, tracks from marts.rpt_resume_risk_patterns "
            "where set_id = ? and pattern_rank <= 5 order by pattern_rank",
            one,
        ),
        "mismatches": rows(
            con,
            "select query_id, track, round_a, round_b, status_a, status_b, query_text "
            "from marts.rpt_resume_consistency_mismatches where set_id = ? "
            "order by track, query_id, round_a, round_b",
            one,
        ),
        "track3_slow": rows(
            con,
            "select round, n_items, n_over_threshold, slow_threshold_sec from marts.rpt_resume_slow_items "
            "where set_id = ? and track = 3 order by round_order",
            one,
        ),
        "rejected_rows": rows(
            con,
            "select line_number, reason, reason_detail from ops.rejected_rows "
            "where source_file = ? and is_current order by line_number",
            one,
        ),
    }


def _by_track(rows: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {row["track"]: row for row in rows}


def resume_tables(ctx: dict[str, Any]) -> dict[str, Any]:
    """Pivot mart rows into the template's tables (no arithmetic)."""
    per_round = []
    for rnd in ctx["rounds"]:
        tracks = _by_track([r for r in ctx["round_tracks"] if r["round"] == rnd["round"]])
        per_round.append({"label": f"{rnd['round']}회차", "row": rnd, "tracks": tracks})
    per_round.append({"label": "세트", "row": ctx["s"], "tracks": _by_track(ctx["tracks"])})
    distribution: dict[str, list[dict[str, Any]]] = {}
    for row in ctx["distribution"]:
        label = "세트" if row["scope"] == "set" else f"{row['round']}회차"
        key = row["latency_rubric"]
        entries = distribution.setdefault(key, [])
        entry = next((e for e in entries if e["label"] == label), None)
        if entry is None:
            entry = {"label": label, "counts": {}}
            entries.append(entry)
        entry["counts"][row["latency_score"]] = row["n_items"]
    return {"per_round": per_round, "distribution": distribution}


def render_resume_reports(db_path: Path, reports_dir: Path, set_ids: list[str] | None = None) -> list[Path]:
    """One markdown file per resume set; returns the paths written."""
    template = environment().get_template("resume_agent_report.md.j2")
    written: list[Path] = []
    with duckdb.connect(str(db_path), read_only=True) as con:
        all_sets = [r["set_id"] for r in rows(con, "select set_id from marts.resume_set_scores order by set_id")]
        for set_id in selected(all_sets, set_ids):
            path = report_path(reports_dir, "resume_agent", set_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            ctx = resume_context(con, set_id)
            ctx.update(resume_tables(ctx))
            ctx["charts"] = _charts().render_charts(con, "resume_agent", set_id, path)
            path.write_text(template.render(**ctx), encoding="utf-8")
            written.append(path)
    return written


def recruit_context(con: duckdb.DuckDBPyConnection, set_id: str, top_n: int = 10) -> dict[str, Any]:
    """Mart rows of one recruit set (SPEC 4.5), ordered for the report."""
    one = [set_id]
    distribution: dict[str, list[dict[str, Any]]] = {}
    for row in rows(
        con,
        "select * from marts.recruit_latency_distribution where set_id = ? order by latency_class, latency_score desc",
        one,
    ):
        distribution.setdefault(row["latency_class"], []).append(row)
    return {
        "s": rows(con, "select * from marts.recruit_set_scores where set_id = ?", one)[0],
        "rounds": rows(con, "select * from marts.recruit_round_scores where set_id = ? order by round_order", one),
        "weights": rows(
            con,
            "select metric, metric_name, weight from rubric.recruit_weights order by weight desc, metric",
        ),
        "failing_checks": rows(
            con,
            "select check_label, reason, n_failed, actual_value from marts.rpt_recruit_failing_checks "
            "where set_id = ? and check_rank <= ? order by check_rank",
            [set_id, top_n],
        ),
        "low_consistency": rows(
            con,
            """
            select * from marts.recruit_query_consistency
            where set_id = ?
            order by consistency_score, n_runs desc, query_id
            limit ?
            """,
            [set_id, top_n],
        ),
        "latency_classes": rows(
            con, "select latency_class, metric_name from rubric.recruit_latency_classes order by latency_class desc"
        ),
        "distribution": distribution,
        "rejected_rows": rows(
            con,
            "select line_number, reason, reason_detail from ops.rejected_rows "
            "where source_file = ? and is_current order by line_number",
            one,
        ),
    }


def render_recruit_reports(db_path: Path, reports_dir: Path, set_ids: list[str] | None = None) -> list[Path]:
    """One markdown file per recruit (H.채용) set; returns the paths written."""
    template = environment().get_template("recruit_agent_report.md.j2")
    written: list[Path] = []
    with duckdb.connect(str(db_path), read_only=True) as con:
        all_sets = [r["set_id"] for r in rows(con, "select set_id from marts.recruit_set_scores order by set_id")]
        for set_id in selected(all_sets, set_ids):
            path = report_path(reports_dir, "recruit_agent", set_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            charts = _charts().render_charts(con, "recruit_agent", set_id, path)
            path.write_text(template.render(**recruit_context(con, set_id), charts=charts), encoding="utf-8")
            written.append(path)
    return written


def render_engagement_reports(db_path: Path, reports_dir: Path, set_ids: list[str] | None = None) -> list[Path]:
    """One markdown file per engagement run: reports/engagement/<drop_date>/<run_id>.md."""
    template = environment().get_template("engagement_report.md.j2")
    written: list[Path] = []
    with duckdb.connect(str(db_path), read_only=True) as con:
        runs = rows(con, "select * from marts.engagement_run_scores order by set_id")
        for run in runs:
            if set_ids is not None and run["set_id"] not in set_ids:
                continue
            one = [run["set_id"]]
            ctx = {
                "r": run,
                "metrics": rows(
                    con,
                    "select * from marts.engagement_run_metrics where set_id = ? order by metric_order",
                    one,
                ),
                "personas": rows(
                    con,
                    "select * from marts.engagement_persona_scores where set_id = ? order by persona",
                    one,
                ),
                "persona_metrics": rows(
                    con,
                    "select * from marts.engagement_persona_metrics where set_id = ? order by persona, metric_order",
                    one,
                ),
                "rejected_rows": rows(
                    con,
                    "select source_file, line_number, reason_detail from ops.rejected_rows "
                    "where kind = 'engagement_actions' and is_current "
                    "and starts_with(source_file, ? || '/') order by source_file, line_number",
                    one,
                ),
            }
            path = report_path(reports_dir, "engagement", run["set_id"])
            path.parent.mkdir(parents=True, exist_ok=True)
            ctx["charts"] = _charts().render_charts(con, "engagement", run["set_id"], path)
            path.write_text(template.render(**ctx), encoding="utf-8")
            written.append(path)
    return written


def summary_context(con: duckdb.DuckDBPyConnection, set_id: str, worst_limit: int = 5) -> dict[str, Any]:
    one = [set_id]
    metrics = rows(con, "select * from marts.summary_set_metrics where set_id = ? order by metric_order", one)
    return {
        "s": rows(con, "select * from marts.summary_set_scores where set_id = ?", one)[0],
        "metrics": metrics,
        "warnings": [m for m in metrics if m["is_below_threshold"]],
        "worst": rows(
            con,
            "select * from marts.summary_case_scores where set_id = ? and n_failed_metrics > 0 "
            "order by n_failed_metrics desc, mean_final_score, case_index limit ?",
            [set_id, worst_limit],
        ),
        "queue": rows(
            con,
            "select metric, review_reason, n_pending, n_judged, n_failed "
            "from marts.rpt_summary_review_queue_counts where set_id = ? order by metric, review_reason",
            one,
        ),
        "rejected_rows": rows(
            con,
            "select line_number, reason, reason_detail from ops.rejected_rows "
            "where source_file = ? and is_current order by line_number",
            one,
        ),
    }


SUMMARY_WORKBOOK = "summary_scores.xlsx"


def render_summary_reports(db_path: Path, reports_dir: Path, set_ids: list[str] | None = None) -> list[Path]:
    """One markdown file per summary dataset, plus the Excel export of the
    summary marts (reports_dir/summary/summary_scores.xlsx)."""
    from agent_eval.export import export_summary_xlsx

    template = environment().get_template("summary_report.md.j2")
    written: list[Path] = []
    with duckdb.connect(str(db_path), read_only=True) as con:
        all_sets = [r["set_id"] for r in rows(con, "select set_id from marts.summary_set_scores order by set_id")]
        for set_id in selected(all_sets, set_ids):
            path = report_path(reports_dir, "summary", set_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            charts = _charts().render_charts(con, "summary", set_id, path)
            path.write_text(template.render(**summary_context(con, set_id), charts=charts), encoding="utf-8")
            written.append(path)
    if all_sets and not set_ids:
        written.append(export_summary_xlsx(db_path, reports_dir / "summary" / SUMMARY_WORKBOOK))
    return written


# One renderer per registered agent (agent_eval.agents), in the registry's
# order: (db_path, reports_dir, set_ids) -> paths written. `agent-eval build`
# and `report` call them all.
RENDERERS: dict[str, Callable[[Path, Path, list[str] | None], list[Path]]] = {
    "resume_agent": render_resume_reports,
    "recruit_agent": render_recruit_reports,
    "engagement": render_engagement_reports,
    "summary": render_summary_reports,
}


def render_all(db_path: Path, reports_dir: Path, set_ids: list[str] | None = None) -> list[Path]:
    """Every agent's reports; with ``set_ids`` only those sets (any agent).
    Raises KeyError naming the ids that are no set of any agent."""
    if set_ids is not None:
        known: set[str] = set()
        with duckdb.connect(str(db_path), read_only=True) as con:
            for agent in agents.AGENTS:
                known |= {r["set_id"] for r in rows(con, f"select set_id from {agent.set_table}")}
        unknown = sorted(set(set_ids) - known)
        if unknown:
            raise KeyError(f"no set {', '.join(map(repr, unknown))} in {db_path}")
    written: list[Path] = []
    for agent in agents.AGENTS:
        written += RENDERERS[agent.name](db_path, reports_dir, set_ids)
    if set_ids is None:
        prune_reports(reports_dir, written)
    return written


def prune_reports(reports_dir: Path, written: list[Path]) -> list[Path]:
    """Remove the reports (and their charts) of sets that are no longer in
    the marts - a withdrawn delivery, a set whose file was replaced under
    another name - after every report was rendered. Only markdown reports
    and PNG charts in the agents' report folders are touched. Returns what
    was removed."""
    kept = {path.resolve() for path in written}
    removed: list[Path] = []
    for agent in agents.AGENTS:  # each agent's folder holds one report per set (not morning/)
        folder = reports_dir / agent.name
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.md")):
            if path.resolve() not in kept:
                path.unlink()
                removed.append(path)
        for png in sorted(folder.rglob("*.png")):
            report = png.with_name(png.name.rsplit(".", 2)[0] + ".md")
            if report.resolve() not in kept:
                png.unlink()
                removed.append(png)
    return removed
