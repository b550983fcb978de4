"""The morning summary: one markdown page for the newest drop across all
agents (`agent-eval report --latest`), from the history marts.

What ran, what of the night was rejected, withdrawn or did not arrive
(per agent), the quality gates, what regressed or improved beyond noise,
the top flips, the flaky questions and links to each set's report. Like the
other reports it selects, orders, formats and escapes; every number comes
from a mart.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import duckdb

from agent_eval import charts, registry
from agent_eval.db import one, rows, scalar
from agent_eval.report import environment

TOP_FLIPS = 10
TOP_FLAKY = 10


def morning_path(reports_dir: Path, drop_date: Any) -> Path:
    return reports_dir / "morning" / f"{drop_date}.md"


def morning_context(con: duckdb.DuckDBPyConnection, newest: Any, reports_dir: Path, page: Path) -> dict[str, Any]:
    """Everything the page shows about the sets of drop date ``newest``."""
    day = [newest]
    sets = rows(
        con,
        "select distinct set_id, agent, series_id, set_seq from marts.history_set_metrics "
        "where drop_date = ? order by agent, series_id, set_id",
        day,
    )
    set_ids = [[row["set_id"] for row in sets]]
    for row in sets:
        row["agent_label"] = registry.label(row["agent"])
        target = registry.by_name()[row["agent"]].report_path(reports_dir, row["set_id"])
        # URL-encoded: a file name with spaces, quotes or parentheses keeps its link
        row["report_link"] = quote(Path(os.path.relpath(target, page.parent)).as_posix())
        row["metrics"] = rows(
            con,
            "select metric, metric_label, metric_value, ci_low, ci_high, n_clusters, is_few_clusters "
            "from marts.history_set_metrics where set_id = ? order by metric_order",
            [row["set_id"]],
        )
    return {
        "drop_date": newest,
        "sets": sets,
        # the day's gates, and every freshness gate (its set is older by
        # design: a series that did not arrive is news on the newest page)
        "gates": rows(
            con,
            "select * from marts.history_gate_results where drop_date = ? or metric = 'freshness' "
            "order by status not in ('fail', 'stale'), status, gate_id, set_id",
            day,
        ),
        "issue_agents": issue_agents(con, newest),
        "changes": rows(
            con,
            "select * from marts.history_metric_diffs where drop_date = ? and verdict <> 'within_noise' "
            "order by verdict desc, agent, set_id, metric_order",
            day,
        ),
        # each verdict's Korean and English labels (seed verdict_labels)
        "verdicts": {
            r["verdict"]: r for r in rows(con, "select verdict, label_ko, label_en from rubric.verdict_labels")
        },
        # the day's counts (rpt_history_day_counts: sums over the day's sets)
        "counts": one(con, "select * from marts.rpt_history_day_counts where drop_date = ?", day),
        "version_changes": rows(
            con,
            "select distinct set_id, baseline_set_id from marts.history_metric_diffs "
            "where drop_date = ? and is_scoring_version_changed order by set_id",
            day,
        ),
        "flip_tests": rows(
            con,
            "select * from marts.history_flip_tests where list_contains(?, set_id) order by agent, set_id",
            set_ids,
        ),
        "flips": rows(
            con,
            "select * from marts.history_flips where transition = 'pass_to_fail' and list_contains(?, set_id) "
            "order by agent, set_id, query_id, round limit ?",
            set_ids + [TOP_FLIPS],
        ),
        "flaky": rows(
            con,
            "select * from marts.history_flaky_queries "
            "order by is_flaky_in_latest desc, n_flaky_sets desc, pass_rate, series_id, query_id limit ?",
            [TOP_FLAKY],
        ),
        "latency": rows(
            con,
            "select * from marts.history_latency_percentiles where scope = 'set' "
            "and item_filter <> 'all' and list_contains(?, set_id) "
            "order by agent, set_id, item_filter desc",
            set_ids,
        ),
    }


def issue_agents(con: duckdb.DuckDBPyConnection, newest: Any) -> list[dict[str, Any]]:
    """One entry per agent with something rejected, withdrawn or missing:
    the issues of drop date ``newest``, of later nights that have no set
    (every delivery rejected or withdrawn) and those of no drop date (an
    expected series that did not arrive, a file outside a date folder):
    the newest page is where they are news."""
    found = rows(
        con,
        "select * from ops.delivery_issues where drop_date is null or drop_date >= ? "
        "order by agent nulls last, issue, drop_date, subject, reason_code",
        [newest],
    )
    return [
        {"agent": agent, "agent_label": registry.label(agent) if agent else None, "issues": list(issues)}
        for agent, issues in itertools.groupby(found, key=lambda row: row["agent"])
    ]


def remove_stale_pages(con: duckdb.DuckDBPyConnection, reports_dir: Path) -> list[Path]:
    """Remove the morning pages (and their charts) of drop dates that no
    longer have a set (every set of the date withdrawn, or its files
    replaced): a page must not list sets the warehouse no longer holds."""
    folder = reports_dir / "morning"
    if not folder.is_dir():
        return []
    dates = {str(r["drop_date"]) for r in rows(con, "select distinct drop_date from marts.history_set_metrics")}
    removed = []
    for page in sorted(folder.glob("*.md")):
        if page.stem in dates:
            continue
        for path in [page, *folder.glob(f"{page.stem}.*.png")]:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def render_morning(db_path: Path, reports_dir: Path) -> Path | None:
    """Write reports/morning/<newest drop date>.md with its overview chart,
    after removing the pages of dates that no longer have a set; None when
    there is no set."""
    with duckdb.connect(str(db_path), read_only=True) as con:
        remove_stale_pages(con, reports_dir)
        newest = scalar(con, "select max(drop_date) from marts.history_set_metrics")
        if newest is None:
            return None
        page = morning_path(reports_dir, newest)
        page.parent.mkdir(parents=True, exist_ok=True)
        ctx = morning_context(con, newest, reports_dir, page)
        ctx["overview_chart"] = charts.render_chart(
            con, str(newest), charts.MORNING_OVERVIEW, charts.chart_path(page, charts.MORNING_OVERVIEW.name)
        )
    text = environment().get_template("morning_summary.md.j2").render(**ctx)
    # the same page as last night's build wrote: left as it is (its chart
    # too, by its key), so a night with nothing new rewrites no file
    if not page.is_file() or page.read_text(encoding="utf-8") != text:
        page.write_text(text, encoding="utf-8")
    return page
