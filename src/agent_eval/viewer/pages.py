"""What each viewer page reads: parameterized queries over the published marts.

Like the reports, the viewer selects, filters, orders and pages; every
number it shows is a column of a public mart (no score is computed here).
Every value from the request reaches SQL as a bound parameter; the only
identifiers put into SQL text are sort columns and metric names, and those
are taken from fixed allow-lists after validation (`BadRequest` otherwise).
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from typing import Any

from agent_eval import compare as compare_mod
from agent_eval import db, registry
from agent_eval.db import Cursor, one, rows, scalar
from agent_eval.viewer.parts import (
    ITEM_SORTS,
    MAX_QUERY_CHARS,
    PER_PAGE,
    BadRequest,
    ItemTable,
    NotFound,
    parse_choice,
    parse_date,
    parse_int,
    pretty_json,
)

__all__ = [
    "ITEM_SORTS",
    "MAX_QUERY_CHARS",
    "PER_PAGE",
    "BadRequest",
    "ItemTable",
    "NotFound",
    "parse_choice",
    "parse_date",
    "parse_int",
    "pretty_json",
]

TEXT_PREVIEW = 160  # characters of question / answer in the item table
MAX_FLIPS = 200

# ---------------------------------------------------------------- labels


def verdict_labels(cur: Cursor) -> dict[str, dict[str, Any]]:
    """Each verdict of history_metric_diffs with its Korean and English
    labels (seed verdict_labels)."""
    return {
        r["verdict"]: r
        for r in rows(cur, "select verdict, label_ko, label_en from rubric.verdict_labels order by verdict_order")
    }


def reason_labels(cur: Cursor) -> dict[str, dict[str, Any]]:
    """Each reason code with its Korean label and explanation (seed reason_labels)."""
    return {r["reason"]: r for r in rows(cur, "select reason, label_ko, explanation from rubric.reason_labels")}


# ---------------------------------------------------------------- sets


def viewer_part(name: str) -> Any:
    """The viewer part of the registered agent ``name`` (its pages), or
    None: no such agent, or an agent without pages of its own."""
    agent = registry.by_name().get(name)
    return agent.part("viewer") if agent is not None else None


def item_table_of(agent: str) -> ItemTable | None:
    """The item table agent ``agent`` declares (its item pages), or None."""
    return getattr(viewer_part(agent), "ITEM_TABLE", None)


def find_set(cur: Cursor, set_id: str | None) -> dict[str, Any]:
    if not set_id:
        raise BadRequest("id (the set id) is required")
    found = one(
        cur,
        "select set_id, agent, series_id, drop_date, set_seq, is_latest, scoring_version "
        "from marts.history_set_metrics where set_id = ? limit 1",
        [unicodedata.normalize("NFC", set_id)],  # set ids are NFC (ingest.unicode_form)
    )
    if found is None:
        raise NotFound(f"no set {set_id!r} in the published file")
    found["agent_label"] = registry.label(found["agent"])
    return found


# a set's metric cards: value, 95% interval and the verdict against the baseline
SET_METRICS_SQL = (
    "select m.metric, m.metric_label, m.direction, m.metric_value, m.ci_low, m.ci_high, "
    "m.ci_method, m.n_obs, m.n_clusters, m.is_few_clusters, d.verdict, d.baseline_set_id, d.baseline_value, "
    "d.delta, d.delta_ci_low, d.delta_ci_high "
    "from marts.history_set_metrics as m "
    "left join marts.history_metric_diffs as d on d.set_id = m.set_id and d.metric = m.metric "
    "where m.set_id = ? order by m.metric_order"
)
SET_GATES_SQL = (
    "select gate_id, metric, status, metric_value, min_score, max_regression, baseline_value, delta, reason "
    "from marts.history_gate_results where set_id = ? order by status <> 'fail', gate_id"
)


def set_metrics(cur: Cursor, set_id: str) -> list[dict[str, Any]]:
    """Metric cards: value, 95% interval and the verdict against the baseline."""
    return rows(cur, SET_METRICS_SQL, [set_id])


def set_gates(cur: Cursor, set_id: str) -> list[dict[str, Any]]:
    return rows(cur, SET_GATES_SQL, [set_id])


# the metrics of the cards of a drop date's sets
OVERVIEW_METRICS_SQL = (
    "select m.set_id, m.agent, m.series_id, m.metric, m.metric_label, m.direction, m.metric_value, m.ci_low, "
    "m.ci_high, m.n_clusters, m.is_few_clusters, d.verdict, d.delta from marts.history_set_metrics as m "
    "left join marts.history_metric_diffs as d on d.set_id = m.set_id and d.metric = m.metric "
    "where m.drop_date = ? order by m.set_id, m.metric_order"
)


def overview(cur: Cursor, day: date | None) -> dict[str, Any]:
    """The newest drop (or ``day``): one card per set with metrics, verdicts
    and gates, one per delivery nothing of which was scored, in their
    agents' order; and per agent what was rejected, withdrawn or did not
    arrive."""
    dates = [
        r["drop_date"]
        for r in rows(cur, "select distinct drop_date from marts.history_set_metrics order by drop_date desc")
    ]
    if day is None:
        day = dates[0] if dates else None
    elif day not in dates:
        raise NotFound(f"no set was delivered on {day}")
    sets = rows(
        cur,
        "select distinct set_id, agent, series_id, set_seq from marts.history_set_metrics "
        "where drop_date = ? order by agent, series_id, set_id",
        [day],
    )
    metrics: dict[str, list[dict[str, Any]]] = {}
    for row in rows(cur, OVERVIEW_METRICS_SQL, [day]):
        metrics.setdefault(row["set_id"], []).append(row)
    gates: dict[str, list[dict[str, Any]]] = {}
    for row in rows(
        cur,
        "select set_id, gate_id, metric, status, metric_value, reason from marts.history_gate_results "
        "where drop_date = ? order by status <> 'fail', gate_id",
        [day],
    ):
        gates.setdefault(row["set_id"], []).append(row)
    counts = {
        row["set_id"]: row
        for row in rows(
            cur,
            "select set_id, n_gates_failed, n_metrics_regressed from marts.rpt_history_set_counts where drop_date = ?",
            [day],
        )
    }
    for row in sets:
        row["agent_label"] = registry.label(row["agent"])
        row["metrics"] = metrics.get(row["set_id"], [])
        row["gates"] = gates.get(row["set_id"], [])
        row["n_failed_gates"] = counts[row["set_id"]]["n_gates_failed"]
        row["n_regressed"] = counts[row["set_id"]]["n_metrics_regressed"]
        row["place"] = row["series_id"]
    issues = day_issues(cur, day, day is None or day == dates[0])
    # a delivery nothing of which was scored is a card in its agent's place
    rejected: dict[str, dict[str, Any]] = {}
    for row in issues:
        if row["is_delivery_rejected"]:
            card = rejected.setdefault(
                row["source_file"],
                {
                    "rejected": row["source_file"],
                    "agent": row["agent"],
                    "agent_label": registry.label(row["agent"]) if row["agent"] else None,
                    "drop_date": row["drop_date"],
                    "place": row["file_name"],
                    "reasons": [],
                },
            )
            card["reasons"].append(row)
    cards = sorted([*sets, *rejected.values()], key=lambda c: (c["agent"] is None, c["agent"] or "", c["place"] or ""))
    issue_agents = [
        {"agent": agent, "agent_label": registry.label(agent) if agent else None, "issues": list(group)}
        for agent, group in itertools.groupby(issues, key=lambda row: row["agent"])
    ]
    return {"day": day, "dates": dates, "sets": sets, "cards": cards, "issue_agents": issue_agents}


def day_issues(cur: Cursor, day: date | None, is_newest: bool) -> list[dict[str, Any]]:
    """What of drop date ``day`` was rejected, withdrawn or did not arrive
    (ops.delivery_issues), by agent. The newest date also shows the issues
    of later nights that have no set and those of no drop date (an expected
    series that did not arrive): that is where they are news."""
    return rows(
        cur,
        "select * from ops.delivery_issues "
        "where drop_date = ? or (? and (drop_date is null or drop_date > ? or ? is null)) "
        "order by agent nulls last, issue, drop_date, subject, reason_code",
        [day, is_newest, day, day],
    )


SERIES_LIST_SQL = (
    "select series_id, agent, n_sets, newest_drop_date as newest from marts.rpt_history_series "
    "order by agent, series_id"
)


def series_list(cur: Cursor) -> list[dict[str, Any]]:
    return rows(cur, SERIES_LIST_SQL)


# a series' points per metric, between two drop dates (either may be null)
SERIES_POINTS_SQL = (
    "select t.metric, t.metric_label, t.direction, t.set_id, t.drop_date, t.set_seq, t.metric_value, "
    "t.ci_low, t.ci_high, t.rolling_7_mean, t.rolling_28_mean, t.baseline_set_id, "
    "b.metric_value as baseline_value "
    "from marts.history_metric_trends as t "
    "left join marts.history_set_metrics as b on b.set_id = t.baseline_set_id and b.metric = t.metric "
    "where t.series_id = ? and (? is null or t.drop_date >= ?) and (? is null or t.drop_date <= ?) "
    "order by t.metric_order, t.set_seq"
)


def series(cur: Cursor, series_id: str | None, start: date | None, end: date | None) -> dict[str, Any]:
    """Trend per metric: value, interval band, rolling mean and the baseline's value."""
    if not series_id:
        raise BadRequest("id (the series id) is required")
    head = one(
        cur,
        "select agent, first_drop_date as first, newest_drop_date as last from marts.rpt_history_series "
        "where series_id = ?",
        [series_id],
    )
    if head is None:
        raise NotFound(f"no series {series_id!r} in the published file")
    if start and end and start > end:
        raise BadRequest("from must not be after to")
    points = rows(cur, SERIES_POINTS_SQL, [series_id, start, start, end, end])
    charts: dict[str, dict[str, Any]] = {}
    for p in points:
        chart = charts.setdefault(
            p["metric"],
            {
                "metric": p["metric"],
                "label": p["metric_label"],
                "direction": p["direction"],
                "x": [],
                "dates": [],
                "sets": [],
                "value": [],
                "ci_low": [],
                "ci_high": [],
                "rolling_7": [],
                "rolling_28": [],
                "baseline": [],
            },
        )
        chart["x"].append(len(chart["x"]))
        chart["dates"].append(str(p["drop_date"]))
        chart["sets"].append(p["set_id"])
        for key, column in (
            ("value", "metric_value"),
            ("ci_low", "ci_low"),
            ("ci_high", "ci_high"),
            ("rolling_7", "rolling_7_mean"),
            ("rolling_28", "rolling_28_mean"),
            ("baseline", "baseline_value"),
        ):
            chart[key].append(finite(p[column]))
    sets = rows(
        cur,
        "select distinct set_id, drop_date, set_seq from marts.history_metric_trends "
        "where series_id = ? and (? is null or drop_date >= ?) and (? is null or drop_date <= ?) "
        "order by set_seq desc",
        [series_id, start, start, end, end],
    )
    # the series' drop dates: the date range is chosen among them (ISO
    # text in a select, where a date input would show the browser's locale)
    drop_dates = [
        r[0]
        for r in db.fetch(
            cur,
            "select distinct drop_date from marts.history_metric_trends where series_id = ? order by drop_date",
            [series_id],
        )[1]
    ]
    return {
        "series_id": series_id,
        "agent": head["agent"],
        "drop_dates": drop_dates,
        "agent_label": registry.label(head["agent"]),
        "first": head["first"],
        "last": head["last"],
        "start": start,
        "end": end,
        "charts": list(charts.values()),
        "sets": sets,
    }


def finite(value: Any) -> float | None:
    """A number a chart can plot (JSON has no NaN): None for missing or non-finite."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


# ---------------------------------------------------------------- item tables


def segment_labels(cur: Cursor, spec: ItemTable) -> dict[str, str]:
    """Each segment value (as text) with its display label, in order."""
    return {str(value): label for value, label in db.fetch(cur, spec.segment_choices_sql)[1]}


def item_filters(cur: Cursor, spec: ItemTable, set_id: str) -> dict[str, list[str]]:
    return {
        "segment": list(segment_labels(cur, spec)),
        "round": [
            r[0]
            for r in db.fetch(
                cur, f"select round from {spec.rounds_table} where set_id = ? order by round_order", [set_id]
            )[1]
        ],
        "status": [r[0] for r in db.fetch(cur, "select status from rubric.status_scores order by status")[1]],
    }


@dataclass(frozen=True)
class ItemFilter:
    """The item table's filters and sort, checked: the SQL condition (values
    as parameters, identifiers from the allow-lists) the page and its
    downloads both use."""

    condition: str
    params: list[Any]
    order: str
    state: dict[str, Any]
    choices: dict[str, list[str]]
    labels: dict[str, str]


def item_filter(cur: Cursor, spec: ItemTable, set_id: str, args: Any) -> ItemFilter:
    """The item table's filters of a request (segment, round, status,
    result, q, sort, dir, per_page); BadRequest for a value outside its
    choices."""
    choices = item_filters(cur, spec, set_id)
    labels = segment_labels(cur, spec)
    segment = parse_choice(args.get("segment"), spec.segment_label, choices["segment"])
    round_ = parse_choice(args.get("round"), "round", choices["round"])
    status = parse_choice(args.get("status"), "status", choices["status"])
    result = parse_choice(args.get("result"), "result", ("pass", "fail"))
    sort = parse_choice(args.get("sort"), "sort", spec.sorts) or "line_number"
    direction = parse_choice(args.get("dir"), "dir", ("asc", "desc")) or "asc"
    per_page = parse_int(args.get("per_page"), "per_page", 50)
    if per_page not in PER_PAGE:
        raise BadRequest(f"per_page must be one of {', '.join(map(str, PER_PAGE))}")
    text = (args.get("q") or "").strip()
    if len(text) > MAX_QUERY_CHARS:
        raise BadRequest(f"q must be at most {MAX_QUERY_CHARS} characters")

    where = ["set_id = ?"]
    params: list[Any] = [set_id]
    if segment is not None:
        where.append(f"cast({spec.segment} as varchar) = ?")
        params.append(segment)
    if round_ is not None:
        where.append("round = ?")
        params.append(round_)
    if status is not None:
        where.append("status = ?")
        params.append(status)
    if result is not None:
        where.append("is_pass = ?")
        params.append(result == "pass")
    if text:
        if any(c in text for c in "%_\\"):
            # LIKE's wildcards in the text: a plain substring test (slower)
            where.append(
                "(contains(lower(coalesce(query_text, '')), ?) or contains(lower(coalesce(assistant_message, '')), ?))"
            )
            params += [text.lower(), text.lower()]
        else:
            # ILIKE '%text%' runs as a substring scan (measured 13 ms against
            # 250 ms for lower() + contains() over 1,000,000 answers)
            where.append("(query_text ilike ? or assistant_message ilike ?)")
            params += [f"%{text}%", f"%{text}%"]
    state = {
        "segment": segment,
        "round": round_,
        "status": status,
        "result": result,
        "sort": sort,
        "dir": direction,
        "per_page": per_page,
        "q": text,
    }
    return ItemFilter(
        condition=" and ".join(where),
        params=params,
        order=f"{sort} {direction} nulls last, line_number",
        state=state,
        choices=choices,
        labels=labels,
    )


def item_rows_sql(spec: ItemTable, condition: str, preview: int | None = TEXT_PREVIEW) -> str:
    """The item table's columns of the items matching ``condition``: the
    question and answer cut to ``preview`` characters (None: whole)."""
    question = f"left(query_text, {preview})" if preview else "query_text"
    answer = "coalesce(assistant_message, error_message)"
    answer = f"left({answer}, {preview})" if preview else answer
    return (
        f"select line_number, query_id, {spec.segment} as segment, round, status, is_pass, "
        f"latency_sec, latency_score, accuracy_score, {question} as query_text, {answer} as answer "
        f"from {spec.table} where {condition}"
    )


def item_table(cur: Cursor, spec: ItemTable, set_id: str, args: dict[str, str]) -> dict[str, Any]:
    """One page of the set's items, filtered and sorted in SQL (a 1,000,000-item
    set stays fast: the filters are column predicates, the page a LIMIT)."""
    chosen = item_filter(cur, spec, set_id, args)
    condition, params, labels = chosen.condition, chosen.params, chosen.labels
    per_page = chosen.state["per_page"]
    page = parse_int(args.get("page"), "page", 1, 1, 10_000_000)
    total = scalar(cur, f"select count(*) from {spec.table} where {condition}", params)
    pages = max(1, math.ceil(total / per_page))
    page = min(page, pages)
    # two steps: the page's line numbers from the narrow sort and filter
    # columns, then the text of those lines only (sorting whole rows with
    # their text cost 258 ms at page 200 of 1,000,000 items; this, 41 ms)
    lines = [
        r[0]
        for r in db.fetch(
            cur,
            f"select line_number from {spec.table} where {condition} order by {chosen.order} limit ? offset ?",
            params + [per_page, (page - 1) * per_page],
        )[1]
    ]
    found = (
        {
            r["line_number"]: r
            for r in rows(cur, item_rows_sql(spec, "set_id = ? and list_contains(?, line_number)"), [set_id, lines])
        }
        if lines
        else {}
    )
    items = [found[line] for line in lines]
    for row in items:
        row["segment_label"] = labels.get(str(row["segment"]), row["segment"])
    state = chosen.state
    return {
        "rows": items,
        "total": total,
        "page": page,
        "pages": pages,
        "state": state,
        "choices": {**chosen.choices, "sort": spec.sorts, "per_page": PER_PAGE},
        "segment_label": spec.segment_label,
        "segment_labels": labels,
    }


def item_spec(cur: Cursor, set_id: str | None) -> tuple[dict[str, Any], ItemTable]:
    """The set and its agent's item table (404 for an agent without one)."""
    found = find_set(cur, set_id)
    spec = item_table_of(found["agent"])
    if spec is None:
        raise NotFound(f"set {found['set_id']!r} ({found['agent']}) has no item table")
    return found, spec


def item_request(cur: Cursor, args: Any) -> tuple[dict[str, Any], ItemTable, int]:
    """The set, item table and line of an item page or its downloads
    (set=, line=)."""
    found, spec = item_spec(cur, args.get("set"))
    line = parse_int(args.get("line"), "line", 0, 1)
    if not line:
        raise BadRequest("line (the item's line number) is required")
    return found, spec, line


def other_rounds_sql(spec: ItemTable, preview: int | None = TEXT_PREVIEW) -> str:
    """The item page's other rounds of its query (three ?: the set, the
    query, the item's line), the answer cut to ``preview`` characters
    (None: whole, as the download has it)."""
    answer = "coalesce(assistant_message, error_message)"
    if preview is not None:
        answer = f"left({answer}, {int(preview)})"
    return (
        f"select line_number, round, status, is_pass, latency_sec, {answer} as answer "
        f"from {spec.table} where set_id = ? and query_id = ? and line_number <> ? "
        f"order by round_order, line_number"
    )


def item(cur: Cursor, spec: ItemTable, set_id: str, line: int) -> dict[str, Any]:
    found = one(cur, f"select * from {spec.table} where set_id = ? and line_number = ?", [set_id, line])
    if found is None:
        raise NotFound(f"set {set_id!r} has no item on line {line}")
    raw, raw_parsed = pretty_json(found.get("raw_json"))
    checks = rows(cur, spec.checks_sql, [set_id, line]) if spec.checks_sql else None
    others = rows(cur, other_rounds_sql(spec), [set_id, found["query_id"], line])
    shown = {
        k: v
        for k, v in found.items()
        if k not in ("raw_json", "query_text", "assistant_message", "expected_result", "error_message")
    }
    return {
        "item": found,
        "fields": shown,
        "raw_json": raw,
        "raw_parsed": raw_parsed,
        "checks": checks,
        "others": others,
    }


PERCENTILES_SQL = (
    "select segment, item_filter, n_items, n_with_latency, p50_sec, p90_sec, p95_sec, p99_sec, max_sec "
    "from marts.history_latency_percentiles where set_id = ? and scope = 'set' order by segment, item_filter"
)


def score_bins_sql(spec: ItemTable) -> str:
    """The histogram of a set's accuracy scores (one ?: the set) in the
    report chart's bins, highest first: every bin, an empty one with 0
    (the histogram mart holds only the bins with items)."""
    return (
        "select b.bin, b.bin_lower, b.bin_upper, coalesce(h.n_items, 0) as n_items "
        "from marts.rpt_score_histogram_bins as b "
        f"left join {spec.score_histogram} as h "
        "on h.bin = b.bin and h.set_id = ? and h.series = 'accuracy_score' "
        "where b.scale = 'item' order by b.bin desc"
    )


def distributions(cur: Cursor, spec: ItemTable, set_id: str) -> dict[str, Any]:
    """Score and latency distributions of a set of an items agent, from its marts."""
    out: dict[str, Any] = {
        "percentiles": rows(cur, PERCENTILES_SQL, [set_id]),
        "rounds": rows(cur, spec.rounds_sql, [set_id]),
        "latency": rows(cur, spec.latency_sql, [set_id]),
    }
    out["scores"] = rows(cur, score_bins_sql(spec), [set_id])
    out["latency_histograms"] = latency_histograms(cur, spec, set_id)
    for part in [out["latency"], out["scores"], *(p["bins"] for p in out["latency_histograms"])]:
        largest = max((r["n_items"] for r in part), default=0)
        for r in part:
            r["share"] = r["n_items"] / largest if largest else 0.0  # bar length only
    return out


def latency_histograms(cur: Cursor, spec: ItemTable, set_id: str) -> list[dict[str, Any]]:
    """The set's latency histogram panels (a track, a latency class) in
    their rubric's bins, as the report's chart draws them: every bin, an
    empty one with 0, and the items without a latency (bin -1) apart."""
    panels: dict[int, dict[str, Any]] = {}
    for row in rows(
        cur,
        "with panels as (select distinct panel_order, panel_title, latency_rubric "
        f"from {spec.latency_histogram} where set_id = ?) "
        "select p.panel_order, p.panel_title, p.latency_rubric, b.bin, b.bin_lower_sec, b.bin_upper_sec, "
        "b.is_overflow, coalesce(h.n_items, 0) as n_items "
        "from panels as p "
        "inner join marts.rpt_latency_histogram_bins as b on b.latency_rubric = p.latency_rubric "
        f"left join {spec.latency_histogram} as h "
        "on h.set_id = ? and h.panel_order = p.panel_order and h.bin = b.bin "
        "order by p.panel_order, b.bin",
        [set_id, set_id],
    ):
        panel = panels.setdefault(
            row["panel_order"],
            {"title": row["panel_title"], "rubric": row["latency_rubric"], "bins": [], "n_missing": 0},
        )
        panel["bins"].append(row)
    for row in rows(
        cur,
        f"select panel_order, n_items from {spec.latency_histogram} where set_id = ? and bin = -1",
        [set_id],
    ):
        if row["panel_order"] in panels:
            panels[row["panel_order"]]["n_missing"] = row["n_items"]
    return list(panels.values())


# ---------------------------------------------------------------- compare


def baseline_of(cur: Cursor, set_id: str) -> str | None:
    """The set's baseline (history_metric_diffs), None for the first of a series."""
    return scalar(
        cur,
        "select max(baseline_set_id) from marts.history_metric_diffs where set_id = ?",
        [set_id],
    )


def compare_sets(args: Any) -> list[str]:
    """The sets of a /compare request: `sets` repeated (the first is the
    reference), NFC as set ids are stored."""
    sets = [unicodedata.normalize("NFC", s) for s in args.getlist("sets") if s]
    if len(sets) > compare_mod.MAX_SETS:
        raise BadRequest(f"compare at most {compare_mod.MAX_SETS} sets at once")
    return sets


def compare_versus(sets: list[str], versus: str | None) -> str:
    """The set the reference's items are paired with: ``versus`` (one of
    the compared sets after the first), default the second."""
    try:
        return compare_mod.versus_of(sets, versus)
    except compare_mod.CompareError as err:
        raise BadRequest(str(err)) from None


def compare_choices(cur: Cursor, agent: str, set_id: str | None = None) -> list[dict[str, Any]]:
    """The sets a set can be compared with: every set of its agent, newest
    first. For an imported run (marts.eval_runs: its series is tool, task
    and model) the runs of the same task come first, whatever their model
    (``is_same_task``): the comparison asked most is two models on one task."""
    return rows(
        cur,
        "with chosen as (select any_value(task) as task from marts.eval_runs where set_id = ?), "
        "runs as (select set_id, any_value(task) as task, any_value(model) as model "
        "from marts.eval_runs group by set_id) "
        "select m.set_id, any_value(m.series_id) as series_id, any_value(m.drop_date) as drop_date, "
        "any_value(r.task) as task, any_value(r.model) as model, "
        "coalesce(any_value(r.task) = any_value(c.task), false) as is_same_task "
        "from marts.history_set_metrics as m "
        "left join runs as r on r.set_id = m.set_id cross join chosen as c "
        "where m.agent = ? group by m.set_id order by is_same_task desc, drop_date desc, m.set_id",
        [set_id, agent],
    )


CHANGED = ("pass_to_fail", "fail_to_pass", "score_changed")


def grid_rows(grid: list[dict[str, Any]], sets: list[str], sort: str | None, direction: str | None) -> dict[str, Any]:
    """The grid as rows of sets (the reference first, then the others in
    the request's order) and columns of metrics; ``sort`` (a metric of the
    grid, BadRequest otherwise) orders the sets by their value of it, best
    first unless ``direction`` says otherwise (asc / desc), missing values
    last. Ordering is presentation: every value is a row of compare_metrics."""
    metrics = {m["metric"]: m for m in grid}
    sort = parse_choice(sort, "sort", list(metrics))
    direction = parse_choice(direction, "dir", ("asc", "desc"))
    order = list(sets)
    if sort is not None:
        metric = metrics[sort]
        if direction is None:
            direction = "asc" if metric["direction"] == "lower_is_better" else "desc"

        def value(set_id: str) -> float | None:
            cell = metric["cells"].get(set_id)
            v = cell["value_b"] if cell else None
            return None if v is None or (isinstance(v, float) and math.isnan(v)) else v

        present = sorted((s for s in sets if value(s) is not None), key=value, reverse=direction == "desc")
        order = present + [s for s in sets if value(s) is None]
    return {
        "grid_sets": order,
        "sort": sort,
        "dir": direction,
        # a header's link sorts by its metric, best first; again: the other way
        "next_dir": {
            m: ("asc" if direction == "desc" else "desc")
            if m == sort
            else ("asc" if metrics[m]["direction"] == "lower_is_better" else "desc")
            for m in metrics
        },
    }


def compare(
    cur: Cursor,
    sets: list[str],
    versus: str | None = None,
    sort: str | None = None,
    direction: str | None = None,
) -> dict[str, Any]:
    """Any sets side by side (agent_eval.compare: the published file's table
    macros): the grid of sets x metrics (sorted by a metric's value: ``sort``,
    ``direction``), and the items of the reference against one other set
    (`versus`, default the second): changed items first (up to MAX_FLIPS),
    the unchanged behind their count, the unpaired listed."""
    for set_id in sets:
        find_set(cur, set_id)  # 404 for a set the file does not hold
    versus = compare_versus(sets, versus) if len(sets) > 1 else None
    try:
        # versus's metrics and each change's first MAX_FLIPS items with its
        # count: one compare_pair call, the items paired once for both
        result = compare_mod.compare(cur, sets, versus, MAX_FLIPS)
    except compare_mod.CompareError as err:
        raise BadRequest(str(err)) from None
    grid = result.grid()
    if not result.paired:
        # no items to pair: the sets' own metrics, and a note that says so
        return {
            "comparison": result,
            "grid": grid,
            **grid_rows(grid, sets, sort, direction),
            "versus": versus,
            "note": compare_mod.METRICS_ONLY,
            "pairing": None,
        }
    shown = result.changed_items
    counts = {r["change"]: r["n_change"] for r in shown}
    listed = [r for r in shown if r["change"] in CHANGED][:MAX_FLIPS]
    unpaired = [r for r in shown if r["change"] in ("only_a", "only_b")][:MAX_FLIPS]
    unchanged = [r for r in shown if r["change"] == "unchanged"]
    tested = [r for r in result.metrics if r["set_b"] == versus and not r.get("is_reference")]
    return {
        "comparison": result,
        "grid": grid,
        **grid_rows(grid, sets, sort, direction),
        "versus": versus,
        "tested": tested,
        "pairing": tested[0] if tested else None,
        "counts": counts,
        "n_changed": sum(counts.get(c, 0) for c in CHANGED),
        "items": listed,
        "unpaired": unpaired,
        "unchanged": unchanged,
        "max_flips": MAX_FLIPS,
    }


# a word: a run of letters or digits (Hangul syllables and jamo are letters),
# or one other character; spaces are their own tokens, so the text comes back whole
WORD = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)


def word_diff(old: str | None, new: str | None) -> list[tuple[str, str]]:
    """Two answers as (op, text) runs, op 'same', 'del' (only in the old) or
    'ins' (only in the new), by words. Both are NFC first, so a Hangul word
    typed as decomposed jamo equals its precomposed form; a Korean word with
    another particle (결과는 / 결과가) differs as one word, as a reader sees it."""
    a = WORD.findall(unicodedata.normalize("NFC", old or ""))
    b = WORD.findall(unicodedata.normalize("NFC", new or ""))
    runs: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            runs.append(("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            runs.append(("del", "".join(a[i1:i2])))
        if j2 > j1:
            runs.append(("ins", "".join(b[j1:j2])))
    return runs


def compare_item_query(cur: Cursor, sets: list[str], query_id: str | None, round_: str | None) -> tuple[str, list[Any]]:
    """The query of one item key of two sets (their row of compare_items)
    and its parameters, the request checked: the side by side page and its
    download both run it."""
    if len(sets) != 2:
        raise BadRequest("an item is compared between two sets: /compare/item?sets=A&sets=B&query=...&round=...")
    if not query_id or round_ is None:
        raise BadRequest("query and round (the item key) are required")
    for set_id in sets:
        find_set(cur, set_id)
    key = [unicodedata.normalize("NFC", query_id), unicodedata.normalize("NFC", round_)]
    return "select * from marts.compare_items(?, ?) where query_id = ? and round = ?", [*sets, *key]


def compare_item(cur: Cursor, sets: list[str], query_id: str | None, round_: str | None) -> dict[str, Any]:
    """One item key of two sets side by side: both rows of compare_items and
    the word-level diff of the two answers."""
    found = one(cur, *compare_item_query(cur, sets, query_id, round_))
    if found is None:
        raise NotFound(f"no item {query_id!r} round {round_!r} in either set")
    return {"item": found, "diff": word_diff(found["message_a"], found["message_b"])}
