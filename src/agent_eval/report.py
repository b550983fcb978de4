"""Markdown reports rendered from the marts (jinja2 templates beside this file).

Numbers come from the marts as they are; this module only selects, orders,
formats and escapes. It computes no score. Each report links the PNG charts
that ``agent_eval.charts`` writes beside it (``<report stem>.<chart>.png``).
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import importlib.metadata
import importlib.util
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import jinja2

from agent_eval import registry
from agent_eval.db import rows, scalar

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
    agent: registry.Agent, db_path: Path, reports_dir: Path, set_ids: list[str] | None = None
) -> list[Path]:
    """One markdown file per set of ``agent`` (all of its sets, or those of
    ``set_ids``), from its report module's TEMPLATE and context(), with its
    charts beside it; then the module's after_reports, if any. Returns the
    paths written."""
    part = agent.part("report")
    if part is None:
        return []
    with duckdb.connect(str(db_path), read_only=True) as con:
        all_sets = [r["set_id"] for r in rows(con, f"select set_id from {agent.set_table} order by set_id")]
        written = _render_sets(con, agent, part, reports_dir, selected(all_sets, set_ids))
    after = getattr(part, "after_reports", None)
    if after is not None:
        written += after(db_path, reports_dir, all_sets, set_ids)
    return written


def _render_sets(
    con: duckdb.DuckDBPyConnection, agent: registry.Agent, part: Any, reports_dir: Path, set_ids: list[str]
) -> list[Path]:
    """Write the reports (and charts) of ``set_ids``, sets of ``agent``."""
    template = environment(Path(part.__file__).parent).get_template(part.TEMPLATE)
    written: list[Path] = []
    for set_id in set_ids:
        path = agent.report_path(reports_dir, set_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        ctx = part.context(con, set_id)
        ctx["charts"] = _charts().render_charts(con, agent, set_id, path)
        path.write_text(template.render(**ctx), encoding="utf-8")
        written.append(path)
    return written


def render_all(db_path: Path, reports_dir: Path, set_ids: list[str] | None = None) -> list[Path]:
    """Every agent's reports; with ``set_ids`` only those sets (any agent).
    Raises KeyError naming the ids that are no set of any agent. What it
    writes is recorded in the ledger, so a build after it rewrites none of
    them while their sets stay as they are."""
    if set_ids is not None:
        known: set[str] = set()
        with duckdb.connect(str(db_path), read_only=True) as con:
            for agent in registry.registered():
                known |= {r["set_id"] for r in rows(con, f"select set_id from {agent.set_table}")}
        unknown = sorted(set(set_ids) - known)
        if unknown:
            raise KeyError(f"no set {', '.join(map(repr, unknown))} in {db_path}")
    written: list[Path] = []
    for agent in registry.registered():
        written += render_reports(agent, db_path, reports_dir, set_ids)
    with duckdb.connect(str(db_path), read_only=True) as con:
        current = set_fingerprints(con)
    ledger = read_ledger(reports_dir)
    done = {path.resolve() for path in written}
    for key, fingerprint in current.items():
        if (reports_dir / key).resolve() in done:
            ledger[key] = fingerprint
    if set_ids is None:
        prune_reports(reports_dir, written)
    write_ledger(reports_dir, {key: ledger[key] for key in current if key in ledger})
    return written


# ---------------------------------------------------------------------------
# What a build renders: the reports whose sets changed
# ---------------------------------------------------------------------------

# reports_dir/LEDGER: each report's path (relative to reports_dir) -> the
# fingerprint of what it was rendered from
LEDGER = ".rendered.json"
DEFERRED = "deferred "  # before the fingerprint of a set whose report a build left out (its limit)


def read_ledger(reports_dir: Path) -> dict[str, str]:
    """The fingerprints the reports on disk were rendered from; empty when
    there is no ledger or it cannot be read (every report is then
    rendered again: the ledger only ever saves work)."""
    try:
        found = json.loads((reports_dir / LEDGER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def write_ledger(reports_dir: Path, ledger: dict[str, str]) -> None:
    """Replace the ledger atomically (a crash leaves the old one, which at
    worst renders a report again)."""
    text = json.dumps(dict(sorted(ledger.items())), ensure_ascii=False, indent=0)
    with contextlib.suppress(OSError):
        if (reports_dir / LEDGER).read_text(encoding="utf-8") == text:
            return  # unchanged: a night with nothing new rewrites no file
    reports_dir.mkdir(parents=True, exist_ok=True)
    tmp = reports_dir / f"{LEDGER}.tmp"
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(reports_dir / LEDGER)


def _source(module: str) -> bytes:
    spec = importlib.util.find_spec(module)
    return Path(spec.origin).read_bytes() if spec is not None and spec.origin else b""


def renderer_version(agent: registry.Agent) -> str:
    """What else decides an agent's report files: this module, the charts
    module and matplotlib's version, the agent's report and charts modules
    and every template the reports may include."""
    parts = [
        Path(__file__).read_bytes(),
        _source("agent_eval.charts"),
        importlib.metadata.version("matplotlib").encode(),
        _source(f"{agent.python_module}.report"),
        _source(f"{agent.python_module}.charts"),
    ]
    report_spec = importlib.util.find_spec(f"{agent.python_module}.report")
    folders = [TEMPLATES] + ([Path(report_spec.origin).parent] if report_spec and report_spec.origin else [])
    for folder in folders:
        parts += [t.name.encode() + t.read_bytes() for t in sorted(folder.glob("*.j2"))]
    return hashlib.sha256(b"\x1f".join(parts)).hexdigest()


def rubric_version(con: duckdb.DuckDBPyConnection) -> str:
    """The content of every rubric table (labels, bands, weights): a report
    shows their labels, which may change without any score changing."""
    tables = [
        r["table_name"]
        for r in rows(
            con,
            "select table_name from information_schema.tables where table_schema = 'rubric' order by table_name",
        )
    ]
    digest = hashlib.sha256()
    for table in tables:
        content = scalar(
            con,
            f"select md5(coalesce(string_agg(cast(t as varchar), chr(10) order by cast(t as varchar)), '')) "
            f'from rubric."{table}" as t',
        )
        digest.update(f"{table}={content}\n".encode())
    return digest.hexdigest()


def set_fingerprints(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each current set's report path (relative to the reports folder) ->
    the fingerprint of what its report is rendered from: its row in its
    agent's set mart (its version, scores and scoring_version), its place
    in its series (marts.history_metric_trends: the trend chart's points
    up to it, the baseline; not is_latest, which a later set changes), the
    rubric tables and the renderer's code. One query per agent: a night
    with nothing new reads no set's report context."""
    rubric = rubric_version(con)
    trends = {
        r["set_id"]: r["h"]
        for r in rows(
            con,
            "select set_id, md5(string_agg(cast(t as varchar), chr(10) order by cast(t as varchar))) as h "
            "from (select * exclude (is_latest) from marts.history_metric_trends) as t group by set_id",
        )
    }
    found: dict[str, str] = {}
    for agent in registry.registered():
        if agent.part("report") is None:
            continue
        code = renderer_version(agent)
        for r in rows(con, f"select s.set_id, md5(cast(s as varchar)) as h from {agent.set_table} as s"):
            key = agent.report_path(Path(), r["set_id"]).as_posix()
            found[key] = hashlib.sha256(
                "\x1f".join([code, rubric, r["h"], trends.get(r["set_id"], "")]).encode()
            ).hexdigest()
    return found


@dataclass
class Rendered:
    """What ``render_changed`` did."""

    written: list[Path] = field(default_factory=list)  # reports (and other files) rewritten
    removed: list[Path] = field(default_factory=list)  # reports of sets no longer in the marts
    unchanged: int = 0  # reports left as they were: their sets did not change
    deferred: list[str] = field(default_factory=list)  # changed sets not rendered (over the limit)
    n_deferred: int = 0  # every set whose report is deferred, this build's and earlier ones'


def render_changed(db_path: Path, reports_dir: Path, limit: int | None = None) -> Rendered:
    """The reports of the sets that changed since their report was written
    (new, replaced, re-scored, moved in their series; or whose report file
    is missing), newest drop date first, at most ``limit`` of them (None:
    all); the reports of sets no longer in the marts removed. A changed set
    over the limit is deferred: the ledger records it (as DEFERRED and its
    fingerprint), so later builds do not render it while it stays as it is
    (a night with nothing new renders nothing); `agent-eval report`
    (``render_all``) renders it, and so does a build once the set changes
    again. A deferred set keeps its older report file, if any. An agent's
    after_reports (a workbook of all its sets) runs when any of its reports
    changed."""
    result = Rendered()
    ledger = read_ledger(reports_dir)
    with duckdb.connect(str(db_path), read_only=True) as con:
        current = set_fingerprints(con)
        todo: list[tuple[str, registry.Agent, str, str]] = []  # (set id, agent, key, fingerprint)
        for agent in registry.registered():
            if agent.part("report") is None:
                continue
            for r in rows(con, f"select set_id from {agent.set_table}"):
                key = agent.report_path(Path(), r["set_id"]).as_posix()
                if ledger.get(key) == DEFERRED + current[key]:
                    result.n_deferred += 1
                elif ledger.get(key) == current[key] and (reports_dir / key).is_file():
                    result.unchanged += 1
                else:
                    todo.append((r["set_id"], agent, key, current[key]))
        # set ids start with their drop date: the newest nights first
        todo.sort(key=lambda t: t[0], reverse=True)
        if limit is not None and len(todo) > limit:
            result.deferred = sorted(t[0] for t in todo[limit:])
            result.n_deferred += len(result.deferred)
            for _, _, key, fingerprint in todo[limit:]:
                ledger[key] = DEFERRED + fingerprint
            todo = todo[:limit]
        changed_agents: set[str] = set()
        for agent in registry.registered():
            mine = [t for t in todo if t[1].name == agent.name]
            if not mine:
                continue
            changed_agents.add(agent.name)
            result.written += _render_sets(con, agent, agent.part("report"), reports_dir, [t[0] for t in mine])
            for _, _, key, fingerprint in mine:
                ledger[key] = fingerprint
    kept = [reports_dir / key for key in current]
    result.removed = prune_reports(reports_dir, kept)
    for path in result.removed:
        if path.suffix == ".md":
            for agent in registry.registered():
                if path.resolve().is_relative_to((reports_dir / agent.report_folder).resolve()):
                    changed_agents.add(agent.name)
    for agent in registry.registered():
        part = agent.part("report")
        after = getattr(part, "after_reports", None) if part is not None else None
        if after is not None and agent.name in changed_agents:
            with duckdb.connect(str(db_path), read_only=True) as con:
                all_sets = [r["set_id"] for r in rows(con, f"select set_id from {agent.set_table} order by set_id")]
            result.written += after(db_path, reports_dir, all_sets, None)
    write_ledger(reports_dir, {key: ledger[key] for key in current if key in ledger})
    return result


def prune_reports(reports_dir: Path, written: list[Path]) -> list[Path]:
    """Remove the reports (and their charts) of sets that are no longer in
    the marts - a withdrawn delivery, a set whose file was replaced under
    another name - after every report was rendered. Only markdown reports
    and PNG charts in the agents' report folders are touched. Returns what
    was removed."""
    kept = {path.resolve() for path in written}
    removed: list[Path] = []
    for agent in registry.registered():  # each agent's folder holds one report per set (not morning/)
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
