"""What each viewer page reads: parameterized queries over the published marts.

Like the reports, the viewer selects, filters, orders and pages; every
number it shows is a column of a public mart (no score is computed here).
Every value from the request reaches SQL as a bound parameter; the only
identifiers put into SQL text are sort columns and metric names, and those
are taken from fixed allow-lists after validation (`BadRequest` otherwise).
"""

from __future__ import annotations

import itertools
import json
import math
import unicodedata
from dataclasses import dataclass
from datetime import date
from typing import Any

from agent_eval import agents, db
from agent_eval.db import Cursor, one, rows, scalar

PER_PAGE = (25, 50, 100, 200)
TEXT_PREVIEW = 160  # characters of question / answer in the item table
MAX_QUERY_CHARS = 200  # a longer free-text search is a malformed request
MAX_FLIPS = 200


class BadRequest(ValueError):
    """A malformed parameter: the page answers 400 with this message."""


class NotFound(LookupError):
    """An unknown set, item, series or run: the page answers 404."""


def pretty_json(text: str | None) -> tuple[str | None, bool]:
    """(text to show, whether it parsed): JSON indented with Korean kept as is;
    text that is not JSON is shown as delivered."""
    if text is None or not text.strip():
        return None, False
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, indent=2), True
    except ValueError:
        return text, False


# ---------------------------------------------------------------- parameters


def parse_int(value: str | None, name: str, default: int, low: int = 1, high: int | None = None) -> int:
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number, not {value[:40]!r}") from None
    if number < low or (high is not None and number > high):
        raise BadRequest(f"{name} must be between {low} and {high}" if high else f"{name} must be at least {low}")
    return number


def parse_date(value: str | None, name: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise BadRequest(f"{name} must be a date YYYY-MM-DD, not {value[:40]!r}") from None


def parse_choice(value: str | None, name: str, choices: list[str] | tuple[str, ...]) -> str | None:
    if value is None or value == "":
        return None
    if value not in choices:
        raise BadRequest(f"{name} must be one of {', '.join(map(str, choices))}, not {value[:40]!r}")
    return value


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
    found["agent_label"] = agents.label(found["agent"])
    return found


def set_metrics(cur: Cursor, set_id: str) -> list[dict[str, Any]]:
    """Metric cards: value, 95% interval and the verdict against the baseline."""
    return rows(
        cur,
        "select m.metric, m.metric_label, m.direction, m.metric_value, m.ci_low, m.ci_high, "
        "m.ci_method, m.n_obs, m.n_clusters, m.is_few_clusters, d.verdict, d.baseline_set_id, d.baseline_value, "
        "d.delta, "
        "d.delta_ci_low, d.delta_ci_high "
        "from marts.history_set_metrics as m "
        "left join marts.history_metric_diffs as d on d.set_id = m.set_id and d.metric = m.metric "
        "where m.set_id = ? order by m.metric_order",
        [set_id],
    )


def set_gates(cur: Cursor, set_id: str) -> list[dict[str, Any]]:
    return rows(
        cur,
        "select gate_id, metric, status, metric_value, min_score, max_regression, baseline_value, delta, reason "
        "from marts.history_gate_results where set_id = ? order by status <> 'fail', gate_id",
        [set_id],
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
    for row in rows(
        cur,
        "select m.set_id, m.metric, m.metric_label, m.direction, m.metric_value, m.ci_low, m.ci_high, "
        "m.n_clusters, m.is_few_clusters, d.verdict, d.delta from marts.history_set_metrics as m "
        "left join marts.history_metric_diffs as d on d.set_id = m.set_id and d.metric = m.metric "
        "where m.drop_date = ? order by m.set_id, m.metric_order",
        [day],
    ):
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
        row["agent_label"] = agents.label(row["agent"])
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
                    "agent_label": agents.label(row["agent"]) if row["agent"] else None,
                    "drop_date": row["drop_date"],
                    "place": row["file_name"],
                    "reasons": [],
                },
            )
            card["reasons"].append(row)
    cards = sorted([*sets, *rejected.values()], key=lambda c: (c["agent"] is None, c["agent"] or "", c["place"] or ""))
    issue_agents = [
        {"agent": agent, "agent_label": agents.label(agent) if agent else None, "issues": list(group)}
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


def series_list(cur: Cursor) -> list[dict[str, Any]]:
    return rows(
        cur,
        "select series_id, agent, n_sets, newest_drop_date as newest from marts.rpt_history_series "
        "order by agent, series_id",
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
    points = rows(
        cur,
        "select t.metric, t.metric_label, t.direction, t.set_id, t.drop_date, t.set_seq, t.metric_value, "
        "t.ci_low, t.ci_high, t.rolling_7_mean, t.rolling_28_mean, t.baseline_set_id, "
        "b.metric_value as baseline_value "
        "from marts.history_metric_trends as t "
        "left join marts.history_set_metrics as b on b.set_id = t.baseline_set_id and b.metric = t.metric "
        "where t.series_id = ? and (? is null or t.drop_date >= ?) and (? is null or t.drop_date <= ?) "
        "order by t.metric_order, t.set_seq",
        [series_id, start, start, end, end],
    )
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
        "agent_label": agents.label(head["agent"]),
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


# what the item table sorts by (columns of both item marts)
ITEM_SORTS = ("line_number", "round_order", "status", "latency_sec", "latency_score", "accuracy_score", "query_id")


@dataclass(frozen=True)
class ItemTable:
    """How one agent's items are filtered, sorted and shown: an agent's
    viewer part declares one (ITEM_TABLE) to get the item table, the item
    pages and the score and latency distributions."""

    table: str
    segment: str  # the column of the segment filter (track / latency class)
    segment_label: str
    # (value, label) of each segment: the value filters the column, the
    # label (a seed's display label, e.g. `Track 1`) is what the page shows
    segment_choices_sql: str
    rounds_table: str
    sorts: tuple[str, ...]
    score_histogram: str  # the mart of the set's score histograms (series accuracy_score)
    latency_histogram: str  # the mart of the set's latency histograms (panels of rpt_latency_histogram_bins)
    rounds_sql: str  # the per-round table of the distributions (one ? : the set)
    latency_sql: str  # items per latency score and segment (one ? : the set)
    latency_label: str  # what the latency distribution is by
    status_counts: bool = False  # rounds_sql gives n_ok / n_partial / n_error / n_empty
    checks_sql: str | None = None  # an item's checks (two ? : the set, the line)


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


def item_table(cur: Cursor, spec: ItemTable, set_id: str, args: dict[str, str]) -> dict[str, Any]:
    """One page of the set's items, filtered and sorted in SQL (a 1,000,000-item
    set stays fast: the filters are column predicates, the page a LIMIT)."""
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
    page = parse_int(args.get("page"), "page", 1, 1, 10_000_000)
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
    condition = " and ".join(where)
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
            f"select line_number from {spec.table} where {condition} "
            f"order by {sort} {direction} nulls last, line_number limit ? offset ?",
            params + [per_page, (page - 1) * per_page],
        )[1]
    ]
    found = (
        {
            r["line_number"]: r
            for r in rows(
                cur,
                f"select line_number, query_id, {spec.segment} as segment, round, status, is_pass, "
                f"latency_sec, latency_score, accuracy_score, "
                f"left(query_text, {TEXT_PREVIEW}) as query_text, "
                f"left(coalesce(assistant_message, error_message), {TEXT_PREVIEW}) as answer "
                f"from {spec.table} where set_id = ? and list_contains(?, line_number)",
                [set_id, lines],
            )
        }
        if lines
        else {}
    )
    items = [found[line] for line in lines]
    for row in items:
        row["segment_label"] = labels.get(str(row["segment"]), row["segment"])
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
    return {
        "rows": items,
        "total": total,
        "page": page,
        "pages": pages,
        "state": state,
        "choices": {**choices, "sort": spec.sorts, "per_page": PER_PAGE},
        "segment_label": spec.segment_label,
        "segment_labels": labels,
    }


def item(cur: Cursor, spec: ItemTable, set_id: str, line: int) -> dict[str, Any]:
    found = one(cur, f"select * from {spec.table} where set_id = ? and line_number = ?", [set_id, line])
    if found is None:
        raise NotFound(f"set {set_id!r} has no item on line {line}")
    raw, raw_parsed = pretty_json(found.get("raw_json"))
    checks = rows(cur, spec.checks_sql, [set_id, line]) if spec.checks_sql else None
    others = rows(
        cur,
        f"select line_number, round, status, is_pass, latency_sec, "
        f"left(coalesce(assistant_message, error_message), {TEXT_PREVIEW}) as answer "
        f"from {spec.table} where set_id = ? and query_id = ? and line_number <> ? "
        f"order by round_order, line_number",
        [set_id, found["query_id"], line],
    )
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


def distributions(cur: Cursor, spec: ItemTable, set_id: str) -> dict[str, Any]:
    """Score and latency distributions of a set of an items agent, from its marts."""
    out: dict[str, Any] = {
        "percentiles": rows(
            cur,
            "select segment, item_filter, n_items, n_with_latency, p50_sec, p90_sec, p95_sec, p99_sec, max_sec "
            "from marts.history_latency_percentiles where set_id = ? and scope = 'set' order by segment, item_filter",
            [set_id],
        ),
        "rounds": rows(cur, spec.rounds_sql, [set_id]),
        "latency": rows(cur, spec.latency_sql, [set_id]),
    }
    # the histogram of the items' accuracy scores in the report chart's
    # bins, highest first: every bin, an empty one with 0 (the histogram
    # mart holds only the bins with items)
    out["scores"] = rows(
        cur,
        "select b.bin, b.bin_lower, b.bin_upper, coalesce(h.n_items, 0) as n_items "
        "from marts.rpt_score_histogram_bins as b "
        f"left join {spec.score_histogram} as h "
        "on h.bin = b.bin and h.set_id = ? and h.series = 'accuracy_score' "
        "where b.scale = 'item' order by b.bin desc",
        [set_id],
    )
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


def compare(cur: Cursor, set_id: str) -> dict[str, Any]:
    diffs = rows(
        cur,
        "select metric, metric_label, direction, baseline_set_id, baseline_source, metric_value, baseline_value, "
        "delta, delta_ci_low, delta_ci_high, min_delta, verdict, is_scoring_version_changed "
        "from marts.history_metric_diffs where set_id = ? order by metric_order",
        [set_id],
    )
    test = one(cur, "select * from marts.history_flip_tests where set_id = ?", [set_id])
    n_flips = (test or {}).get("n_matched") or 0  # the rows of history_flips of the set
    flips = rows(
        cur,
        "select query_id, round, query_text, transition, baseline_status, status, baseline_line_number, "
        "line_number, baseline_message, message from marts.history_flips where set_id = ? "
        "order by transition desc, query_id, round limit ?",
        [set_id, MAX_FLIPS],
    )
    baseline = next((d["baseline_set_id"] for d in diffs if d["baseline_set_id"]), None)
    return {
        "diffs": diffs,
        "test": test,
        "flips": flips,
        "n_flips": n_flips,
        "baseline_set_id": baseline,
        "max_flips": MAX_FLIPS,
    }
