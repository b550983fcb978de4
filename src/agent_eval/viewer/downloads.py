"""The viewer's downloads: every table of a page as CSV or Parquet, with the
page's filters applied (/download/<table>.<csv|parquet>?<the page's query>).

Each downloadable table is named here with a builder that checks the
request as its page does (the page's own filter function, so the rows are
the page's) and returns the page's query without its paging: SQL text from
this module and the page modules only, every request value a bound
parameter. An agent's own pages (its viewer part) contribute their tables
the same way, by name (``DOWNLOADS``: name -> builder returning a
``parts.Table``), so this module names no agent. The rows come from DuckDB
as Arrow batches, pyarrow writes them to a temporary file (the viewer's
DuckDB connection may not touch files), streamed back and removed: a download of a 1,000,000-item table is never
held in memory whole, and no figure is computed in Python (the compare's
rows come from the published file's table macros).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pyarrow import csv, parquet

from agent_eval import compare as compare_mod
from agent_eval import registry
from agent_eval.db import Cursor
from agent_eval.viewer import eval_sets, pages
from agent_eval.viewer.parts import Table

FORMATS = {"csv": ("text/csv",), "parquet": ("application/vnd.apache.parquet",)}
CHUNK = 1 << 16  # bytes of the file per chunk of the response
BATCH_ROWS = 100_000  # rows per Arrow batch: a large table is written batch by batch

# the compare's item table, by the page's sections (or one change)
CHANGE_GROUPS = {
    "changed": pages.CHANGED,
    "unpaired": ("only_a", "only_b"),
    "unchanged": ("unchanged",),
    **{c: (c,) for c in (*pages.CHANGED, "only_a", "only_b")},
}


def set_items(cur: Cursor, args: Any) -> Table:
    """A set's item table (agents with items), its filters and sort applied,
    every matching item (not one page), question and answer whole."""
    found, spec = pages.item_spec(cur, args.get("id"))
    chosen = pages.item_filter(cur, spec, found["set_id"], args)
    sql = f"{pages.item_rows_sql(spec, chosen.condition, preview=None)} order by {chosen.order}"
    return Table(sql, chosen.params, f"items_{found['set_id']}")


def item_checks(cur: Cursor, args: Any) -> Table:
    """An item page's checks (agents whose item table has checks)."""
    found, spec, line = pages.item_request(cur, args)
    if spec.checks_sql is None:
        raise pages.NotFound(f"set {found['set_id']!r} ({found['agent']}) has no checks")
    return Table(spec.checks_sql, [found["set_id"], line], f"checks_{found['set_id']}_{line}")


def item_rounds(cur: Cursor, args: Any) -> Table:
    """An item page's table of the same query's other rounds."""
    found, spec, line = pages.item_request(cur, args)
    query_id = pages.scalar(
        cur, f"select query_id from {spec.table} where set_id = ? and line_number = ?", [found["set_id"], line]
    )
    if query_id is None:
        raise pages.NotFound(f"set {found['set_id']!r} has no item on line {line}")
    sql = pages.other_rounds_sql(spec, preview=None)  # the answers whole
    return Table(sql, [found["set_id"], query_id, line], f"rounds_{found['set_id']}_{line}")


def set_distribution(kind: str) -> Callable[[Cursor, Any], Table]:
    """One distribution table of a set page (rounds, scores, latency,
    percentiles)."""

    def build(cur: Cursor, args: Any) -> Table:
        found, spec = pages.item_spec(cur, args.get("id"))
        sql = {
            "rounds": spec.rounds_sql,
            "scores": pages.score_bins_sql(spec),
            "latency": spec.latency_sql,
            "percentiles": pages.PERCENTILES_SQL,
        }[kind]
        return Table(sql, [found["set_id"]], f"{kind}_{found['set_id']}")

    return build


def set_metrics(cur: Cursor, args: Any) -> Table:
    found = pages.find_set(cur, args.get("id"))
    return Table(pages.SET_METRICS_SQL, [found["set_id"]], f"metrics_{found['set_id']}")


def set_gates(cur: Cursor, args: Any) -> Table:
    found = pages.find_set(cur, args.get("id"))
    return Table(pages.SET_GATES_SQL, [found["set_id"]], f"gates_{found['set_id']}")


def eval_set(cur: Cursor, set_id: str | None) -> dict[str, Any]:
    found = pages.find_set(cur, set_id)
    if pages.scalar(cur, "select count(*) from marts.eval_runs where set_id = ?", [found["set_id"]]) == 0:
        raise pages.NotFound(f"set {found['set_id']!r} is not an imported run")
    return found


def eval_scores(cur: Cursor, args: Any) -> Table:
    """An imported run's scorers table."""
    found = eval_set(cur, args.get("id"))
    return Table(eval_sets.SCORES_SQL, [found["set_id"]], f"scores_{found['set_id']}")


def eval_items(cur: Cursor, args: Any) -> Table:
    """An imported run's item table, its filters applied, every match."""
    found = eval_set(cur, args.get("id"))
    chosen = eval_sets.item_filter(cur, found["set_id"], args)
    return Table(eval_sets.items_sql(chosen["condition"]), chosen["params"], f"items_{found['set_id']}")


def eval_sample(cur: Cursor, args: Any) -> Table:
    """An imported run's sample and epoch: every scorer's verdict."""
    found = eval_set(cur, args.get("id"))
    sample = args.get("sample")
    if not sample:
        raise pages.BadRequest("sample (the sample id) is required")
    epoch = pages.parse_int(args.get("epoch"), "epoch", 1, 1, 1_000_000)
    return Table(eval_sets.SAMPLE_SQL, [found["set_id"], sample, epoch], f"sample_{found['set_id']}_{sample}_{epoch}")


def overview(cur: Cursor, args: Any) -> Table:
    """The metrics of the overview's cards: the sets of a drop date (the newest
    by default)."""
    day = pages.parse_date(args.get("date"), "date")
    if day is None:
        day = pages.scalar(cur, "select max(drop_date) from marts.history_set_metrics")
    elif not pages.scalar(cur, "select count(*) from marts.history_set_metrics where drop_date = ?", [day]):
        raise pages.NotFound(f"no set was delivered on {day}")
    return Table(pages.OVERVIEW_METRICS_SQL, [day], f"overview_{day}")


def series_index(cur: Cursor, args: Any) -> Table:
    return Table(pages.SERIES_LIST_SQL, [], "series")


def series(cur: Cursor, args: Any) -> Table:
    """A series' points, every metric (or ``metric``), between from and to."""
    series_id = args.get("id")
    if not series_id:
        raise pages.BadRequest("id (the series id) is required")
    if not pages.scalar(cur, "select count(*) from marts.rpt_history_series where series_id = ?", [series_id]):
        raise pages.NotFound(f"no series {series_id!r} in the published file")
    start, end = pages.parse_date(args.get("from"), "from"), pages.parse_date(args.get("to"), "to")
    params: list[Any] = [series_id, start, start, end, end]
    sql = pages.SERIES_POINTS_SQL
    metric = args.get("metric")
    if metric:
        # the filter wraps the page's query: the metric is a parameter
        sql = f"select * from ({sql}) where metric = ? order by set_seq"
        params.append(metric)
    return Table(sql, params, f"series_{series_id}")


def compare_request(cur: Cursor, args: Any) -> tuple[list[str], bool]:
    """The sets of a compare download, checked, and whether their items pair
    (False: a set has no items, the comparison is of metrics only)."""
    sets = pages.compare_sets(args)
    if len(sets) < 2:
        raise pages.BadRequest("compare needs at least two sets: sets=A&sets=B (A is the reference)")
    for set_id in sets:
        pages.find_set(cur, set_id)
    try:
        _, n_items = compare_mod.check_sets(cur, sets)
    except compare_mod.CompareError as err:
        raise pages.BadRequest(str(err)) from None
    return sets, all(n_items.values())


def compare_metrics(cur: Cursor, args: Any) -> Table:
    """The comparison: compare_metrics of each other set against the first,
    in METRIC_COLUMNS, the sets in their order."""
    sets, paired = compare_request(cur, args)
    columns = ", ".join(compare_mod.METRIC_COLUMNS)
    source = "marts.compare_metrics(?, ?)" if paired else f"({compare_mod.METRICS_ONLY_SQL})"
    parts = " union all ".join(
        f"select {k} as set_order, metric_order, {columns} from {source}" for k in range(1, len(sets))
    )
    params = [
        value for other in sets[1:] for value in ((sets[0], other) if paired else (sets[0], sets[0], sets[0], other))
    ]
    sql = f"select {columns} from ({parts}) order by set_order, metric_order"
    return Table(sql, params, "compare_metrics")


def compare_items(cur: Cursor, args: Any) -> Table:
    """The paired items of the reference and ``versus`` (default the
    second set), changed first; ``change`` keeps a section of the page
    (changed, unpaired, unchanged) or one change."""
    sets, paired = compare_request(cur, args)
    if not paired:
        raise pages.BadRequest(compare_mod.METRICS_ONLY)
    versus = pages.compare_versus(sets, args.get("versus"))
    group = pages.parse_choice(args.get("change"), "change", tuple(CHANGE_GROUPS))
    # the macro's order (a filter keeps it: DuckDB preserves the order of
    # a subquery's rows through where and select)
    sql = "select * from marts.compare_items(?, ?)"
    params: list[Any] = [sets[0], versus]
    if group is not None:
        sql += " where list_contains(?, change)"
        params.append(list(CHANGE_GROUPS[group]))
    return Table(sql, params, "compare_items")


def compare_item(cur: Cursor, args: Any) -> Table:
    """One item key of two sets side by side (/compare/item): its row of
    compare_items, both answers whole."""
    sql, params = pages.compare_item_query(cur, pages.compare_sets(args), args.get("query"), args.get("round"))
    return Table(sql, params, f"compare_item_{params[2]}_{params[3]}")


# every downloadable table of the viewer, by the name in its URL
TABLES: dict[str, Callable[[Cursor, Any], Table]] = {
    "overview": overview,
    "series_index": series_index,
    "series": series,
    "set_metrics": set_metrics,
    "set_gates": set_gates,
    "items": set_items,
    "rounds": set_distribution("rounds"),
    "scores": set_distribution("scores"),
    "latency": set_distribution("latency"),
    "percentiles": set_distribution("percentiles"),
    "eval_scores": eval_scores,
    "eval_items": eval_items,
    "eval_sample": eval_sample,
    "item_checks": item_checks,
    "item_rounds": item_rounds,
    "compare_metrics": compare_metrics,
    "compare_items": compare_items,
    "compare_item": compare_item,
}


def agent_tables() -> dict[str, Callable[[Cursor, Any], Table]]:
    """The tables the agents' own pages contribute: each registered agent's
    viewer part's ``DOWNLOADS`` (name -> builder), in the registry's order;
    a name taken twice (by an agent and the shared tables, or by two
    agents) is an error of the agents' code."""
    found: dict[str, Callable[[Cursor, Any], Table]] = {}
    for agent in registry.registered():
        part = agent.part("viewer")
        for name, builder in getattr(part, "DOWNLOADS", {}).items():
            if name in TABLES or name in found:
                raise ValueError(f"agent {agent.name}: download table {name!r} is already taken")
            found[name] = builder
    return found


def file_name(stem: str, fmt: str) -> str:
    """A file name a browser keeps: the stem's letters, digits, dots and
    dashes, the rest as underscores."""
    return re.sub(r"[^\w.-]+", "_", stem, flags=re.ASCII).strip("_")[:120] + "." + fmt


def build(cur: Cursor, table: str, args: Any) -> Table:
    """The download ``table`` of a request (404 for a name neither in TABLES
    nor an agent's DOWNLOADS)."""
    tables = {**TABLES, **agent_tables()}
    builder = tables.get(table)
    if builder is None:
        raise pages.NotFound(f"no table {table[:40]!r} to download (one of {', '.join(tables)})")
    return builder(cur, args)


def write(cur: Cursor, found: Table, fmt: str) -> Iterator[bytes]:
    """The table's rows, read from DuckDB as Arrow batches and written by
    pyarrow to a temporary file (the viewer's DuckDB may not touch files);
    the chunks of that file, which is removed once read (or abandoned)."""
    if fmt not in FORMATS:
        raise pages.NotFound(f"no format {fmt[:20]!r} (csv or parquet)")
    folder = Path(tempfile.mkdtemp(prefix="agent-eval-download-"))
    path = folder / f"table.{fmt}"
    try:
        batches = cur.sql(found.sql, params=found.params).to_arrow_reader(BATCH_ROWS)
        writer = (csv.CSVWriter if fmt == "csv" else parquet.ParquetWriter)(str(path), batches.schema)
        with writer:
            for batch in batches:
                writer.write_batch(batch)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise

    def chunks() -> Iterator[bytes]:
        try:
            with path.open("rb") as f:
                while chunk := f.read(CHUNK):
                    yield chunk
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return chunks()
