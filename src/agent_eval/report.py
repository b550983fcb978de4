"""Markdown reports rendered from the marts (jinja2 templates beside this file).

Numbers come from the marts as they are; this module only selects, orders,
formats and escapes. It computes no score.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb
import jinja2

TEMPLATES = Path(__file__).parent / "templates"


def md_cell(value: Any) -> str:
    """Text safe inside a markdown table cell: HTML escaped, pipes escaped,
    line breaks as <br>, never empty-looking."""
    if value is None:
        return ""
    text = html.escape(str(value), quote=False)
    text = text.replace("|", "\\|")
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


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
    cursor = con.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def report_path(reports_dir: Path, agent: str, set_id: str) -> Path:
    stem = Path(set_id).with_suffix(".md")
    return reports_dir / agent / stem


def resume_context(con: duckdb.DuckDBPyConnection, set_id: str) -> dict[str, Any]:
    one = [set_id]
    set_row = _rows(con, "select * from marts.resume_set_scores where set_id = ?", one)[0]
    return {
        "s": set_row,
        "rounds": _rows(
            con, "select * from marts.resume_round_scores where set_id = ? order by round_order", one
        ),
        "round_tracks": _rows(
            con,
            "select * from marts.resume_round_track_scores where set_id = ? "
            "order by round_order, track",
            one,
        ),
        "tracks": _rows(
            con, "select * from marts.resume_set_track_scores where set_id = ? order by track", one
        ),
        "round_pairs": _rows(
            con,
            "select * from marts.resume_consistency_round_pairs where set_id = ? "
            "order by round_a_order, round_b_order",
            one,
        ),
        "distribution": _rows(
            con,
            "select * from marts.resume_latency_distribution where set_id = ? "
            "order by scope = 'set', round_order, latency_rubric desc, latency_score desc",
            one,
        ),
        "risk_patterns": _rows(
            con,
            """
            select status, status_reason, coalesce(error_message, '') as error_message,
                   count(*) as n_items, list(distinct track order by track) as tracks
            from marts.resume_item_scores
            where set_id = ? and status in ('error', 'empty')
            group by all
            order by n_items desc, status, status_reason, error_message
            limit 5
            """,
            one,
        ),
        "mismatches": _rows(
            con,
            """
            select p.query_id, p.track, p.round_a, p.round_b, p.status_a, p.status_b,
                   any_value(i.query_text) as query_text
            from marts.resume_consistency_pairs as p
            left join marts.resume_item_scores as i
              on i.set_id = p.set_id and i.query_id = p.query_id and i.round = p.round_a
             and not i.is_duplicate
            where p.set_id = ? and p.outcome = 'mismatch'
            group by all
            order by p.track, p.query_id, p.round_a, p.round_b
            """,
            one,
        ),
        "track3_slow": _rows(
            con,
            """
            select round, round_order, count(*) as n_items,
                   count(*) filter (where latency_sec > 60) as n_over_60
            from marts.resume_item_scores
            where set_id = ? and track = 3
            group by round, round_order
            order by round_order
            """,
            one,
        ),
        "rejected_rows": _rows(
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
        all_sets = [r[0] for r in con.sql("select set_id from marts.resume_set_scores order by set_id").fetchall()]
        for set_id in set_ids or all_sets:
            if set_id not in all_sets:
                raise KeyError(f"no resume set {set_id!r} in {db_path}")
            path = report_path(reports_dir, "resume_agent", set_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            ctx = resume_context(con, set_id)
            ctx.update(resume_tables(ctx))
            path.write_text(template.render(**ctx), encoding="utf-8")
            written.append(path)
    return written


# One renderer per agent: (db_path, reports_dir) -> paths written. Each new
# agent appends its renderer here; `agent-eval build` and `report` call them all.
RENDERERS = [render_resume_reports]


def render_all(db_path: Path, reports_dir: Path) -> list[Path]:
    written: list[Path] = []
    for renderer in RENDERERS:
        written += renderer(db_path, reports_dir)
    return written
