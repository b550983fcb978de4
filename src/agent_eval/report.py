"""Markdown reports rendered from the marts (jinja2 templates beside this file).

Numbers come from the marts as they are; this module only selects, orders,
formats and escapes. It computes no score. Each report links the PNG charts
that ``agent_eval.charts`` writes beside it (``<report stem>.<chart>.png``).
"""

from __future__ import annotations

import html
import re
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


CODE = re.compile(r"[a-z][a-z0-9_]*")


def md_labelled(code: Any, label: Any) -> str:
    """A code (a reason, a verdict) for a table cell with its display label
    from a seed: `label (`code`)`, or the code alone when the seed has no
    label for it."""
    if code is None:
        return ""
    shown = f"`{code}`" if CODE.fullmatch(str(code)) else md_cell(code)
    return f"{md_cell(label)} ({shown})" if label else shown


def fmt_pct(value: Any) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def environment(*folders: Path) -> jinja2.Environment:
    """The reports' jinja2 environment: templates in ``folders`` (an agent's
    package), then in the shared templates folder."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(folder) for folder in (*folders, TEMPLATES)]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["cell"] = md_cell
    env.filters["num"] = fmt_num
    env.filters["pct"] = fmt_pct
    env.filters["labelled"] = md_labelled
    return env


def selected(all_sets: list[str], set_ids: list[str] | None) -> list[str]:
    """The sets a renderer writes: all of its own, or those of ``set_ids``
    that are its own (``render_all`` reports ids that no renderer knows)."""
    return all_sets if set_ids is None else [s for s in all_sets if s in set_ids]


def render_reports(
    agent: agents.Agent, db_path: Path, reports_dir: Path, set_ids: list[str] | None = None
) -> list[Path]:
    """One markdown file per set of ``agent`` (all of its sets, or those of
    ``set_ids``), from its report module's TEMPLATE and context(), with its
    charts beside it; then the module's after_reports, if any. Returns the
    paths written."""
    part = agent.part("report")
    if part is None:
        return []
    template = environment(Path(part.__file__).parent).get_template(part.TEMPLATE)
    written: list[Path] = []
    with duckdb.connect(str(db_path), read_only=True) as con:
        all_sets = [r["set_id"] for r in rows(con, f"select set_id from {agent.set_table} order by set_id")]
        for set_id in selected(all_sets, set_ids):
            path = agent.report_path(reports_dir, set_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            ctx = part.context(con, set_id)
            ctx["charts"] = _charts().render_charts(con, agent, set_id, path)
            path.write_text(template.render(**ctx), encoding="utf-8")
            written.append(path)
    after = getattr(part, "after_reports", None)
    if after is not None:
        written += after(db_path, reports_dir, all_sets, set_ids)
    return written


def render_all(db_path: Path, reports_dir: Path, set_ids: list[str] | None = None) -> list[Path]:
    """Every agent's reports; with ``set_ids`` only those sets (any agent).
    Raises KeyError naming the ids that are no set of any agent."""
    if set_ids is not None:
        known: set[str] = set()
        with duckdb.connect(str(db_path), read_only=True) as con:
            for agent in agents.registered():
                known |= {r["set_id"] for r in rows(con, f"select set_id from {agent.set_table}")}
        unknown = sorted(set(set_ids) - known)
        if unknown:
            raise KeyError(f"no set {', '.join(map(repr, unknown))} in {db_path}")
    written: list[Path] = []
    for agent in agents.registered():
        written += render_reports(agent, db_path, reports_dir, set_ids)
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
    for agent in agents.registered():  # each agent's folder holds one report per set (not morning/)
        folder = reports_dir / agent.report_folder
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
