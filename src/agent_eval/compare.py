"""Compare any sets of one agent side by side (docs/compare.md).

Reads the published file only through its table macros (macros/compare.sql):
``marts.compare_metrics(set_a, set_b)`` (per metric: both values, the paired
difference, its interval clustered by query, p-value, Holm's adjustment,
verdict), ``marts.compare_items(set_a, set_b)`` (the items paired by the
agent's item key, changed first), ``marts.compare_changed_items(set_a, set_b,
top_n)`` (each change's first top_n items and its count) and
``marts.compare_pair(set_a, set_b, top_n)`` (the rows of the first and the
third from one pairing, for a page that shows both). Every figure and the
items' order are the macros'; this module checks the request, calls them with
bound parameters and formats rows. The CLI (`agent-eval compare`) and the
viewer's /compare page use it.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from typing import Any

from agent_eval.db import Cursor, rows

MAX_SETS = 10  # a wider grid is not readable; the page and the CLI refuse it

# the columns of the comparison, in the order of --csv and the JSON rows
METRIC_COLUMNS = (
    "set_a",
    "set_b",
    "metric",
    "metric_label",
    "direction",
    "value_a",
    "value_b",
    "delta",
    "ci_low",
    "ci_high",
    "n_pairs",
    "n_clusters",
    "std_error",
    "test",
    "p_value",
    "p_holm",
    "min_delta",
    "verdict",
    "n_paired",
    "n_only_a",
    "n_only_b",
    "n_pass_fail",
    "n_fail_pass",
)


class CompareError(ValueError):
    """A request the compare cannot answer (unknown set, mixed agents, fewer
    than two sets): the message says which."""


@dataclass
class Comparison:
    """The first set (the reference), every set's agent and item count, and
    the rows of compare_metrics of each other set against the first."""

    sets: list[str]
    agent: str
    n_items: dict[str, int]
    metrics: list[dict[str, Any]] = field(default_factory=list)
    # False: a set has no items to pair (an agent without items, such as the
    # summary's cases or an aggregate-only import): the sets' own metrics
    # side by side, no paired test (see METRICS_ONLY)
    paired: bool = True
    # with compare(versus=..., top_n=...): the first top_n items of each
    # change of the reference against `versus`, each with its change's
    # count n_change (compare_changed_items' rows, from the same pairing)
    changed_items: list[dict[str, Any]] = field(default_factory=list)

    def grid(self) -> list[dict[str, Any]]:
        """One row per metric: its label, direction, the first set's value
        and, per other set, its row of compare_metrics; best and worst mark
        the sets (the first included) with the best and worst value in the
        metric's good direction (none when all are equal)."""
        by_metric: dict[str, dict[str, Any]] = {}
        for row in self.metrics:
            entry = by_metric.setdefault(
                row["metric"],
                {
                    "metric": row["metric"],
                    "metric_label": row["metric_label"],
                    "direction": row["direction"],
                    "metric_order": row.get("metric_order", 0),
                    "cells": {},
                },
            )
            entry["cells"][row["set_b"]] = row
        for entry in by_metric.values():
            values: dict[str, float] = {}
            for set_id, row in entry["cells"].items():
                values[set_id] = row["value_b"]
            sign = -1 if entry["direction"] == "lower_is_better" else 1
            ranked = sorted((sign * v, s) for s, v in values.items() if v is not None and not math.isnan(v))
            entry["best"] = entry["worst"] = None
            if ranked and ranked[0][0] != ranked[-1][0]:
                entry["best"], entry["worst"] = ranked[-1][1], ranked[0][1]
        return sorted(by_metric.values(), key=lambda e: (e["metric_order"], e["metric"]))


METRICS_ONLY = (
    "No items to pair (a set of an agent without an item table): each set's own metrics "
    "(history_set_metrics) side by side, without a paired test; Δ, its interval and the verdict "
    "are the history's (history_metric_diffs), shown where A is the set's baseline"
)


# the rows of a metrics-only comparison of B (the fourth ?) with A (the first
# three), in METRIC_COLUMNS and metric_order: what the history holds, nothing new
METRICS_ONLY_SQL = (
    "select ? as set_a, b.set_id as set_b, b.metric, b.metric_label, b.direction, "
    "a.metric_value as value_a, b.metric_value as value_b, d.delta, d.delta_ci_low as ci_low, "
    "d.delta_ci_high as ci_high, null::bigint as n_pairs, d.n_clusters, d.delta_std_error as std_error, "
    "case when d.delta is not null then 'history_metric_diffs' end as test, null::double as p_value, "
    "null::double as p_holm, d.min_delta, d.verdict, null::bigint as n_paired, null::bigint as n_only_a, "
    "null::bigint as n_only_b, null::bigint as n_pass_fail, null::bigint as n_fail_pass, b.metric_order "
    "from marts.history_set_metrics as b "
    "left join marts.history_set_metrics as a on a.set_id = ? and a.metric = b.metric "
    "left join marts.history_metric_diffs as d "
    "on d.set_id = b.set_id and d.metric = b.metric and d.baseline_set_id = ? "
    "where b.set_id = ? order by b.metric_order"
)


def check_sets(cur: Cursor, sets: list[str]) -> tuple[str, dict[str, int]]:
    """The agent of the sets and each set's item count (0 for a set without
    items); CompareError for fewer than two sets, a repeated or unknown set,
    or sets of several agents (their item keys and measures do not pair)."""
    if len(sets) < 2:
        raise CompareError("compare needs at least two sets (the first is the reference)")
    if len(sets) > MAX_SETS:
        raise CompareError(f"compare at most {MAX_SETS} sets at once, not {len(sets)}")
    if len(set(sets)) != len(sets):
        raise CompareError("a set is named twice: " + ", ".join(s for s in sets if sets.count(s) > 1))
    found = {
        r["set_id"]: r
        for r in rows(
            cur,
            "select m.set_id, any_value(m.agent) as agent, "
            "(select count(*) from marts.history_items as i where i.set_id = m.set_id) as n_items "
            "from marts.history_set_metrics as m where m.set_id in (select unnest(?)) group by m.set_id",
            [sets],
        )
    }
    unknown = [s for s in sets if s not in found]
    if unknown:
        raise CompareError("no set " + ", ".join(unknown) + " in the published file")
    agents = sorted({found[s]["agent"] for s in sets})
    if len(agents) > 1:
        raise CompareError("the sets belong to several agents (" + ", ".join(agents) + "): compare sets of one agent")
    return agents[0], {s: found[s]["n_items"] for s in sets}


def versus_of(sets: list[str], versus: str | None) -> str:
    """The set the reference's items are paired with: ``versus`` (one of
    the compared sets after the first), default the second."""
    versus = versus or sets[1]
    if versus not in sets[1:]:
        raise CompareError(f"versus must be one of the compared sets after the first, not {versus[:80]!r}")
    return versus


# the columns of compare_metrics' rows (compare_pair's rows of row_type 'metric')
METRIC_ROW_COLUMNS = (*METRIC_COLUMNS, "metric_order")


def compare(cur: Cursor, sets: list[str], versus: str | None = None, top_n: int | None = None) -> Comparison:
    """Every other set against the first, one compare_metrics call each;
    the first set's own row (delta 0) is its value_a. With ``versus`` (a
    set after the first) and ``top_n``, that set's metrics and the first
    top_n items of each change come from one compare_pair call, which
    pairs the items once for both (``changed_items``)."""
    agent, n_items = check_sets(cur, sets)
    result = Comparison(sets=list(sets), agent=agent, n_items=n_items)
    if not all(n_items.values()):
        return metrics_only(cur, result)
    if versus is not None:
        versus = versus_of(sets, versus)
    for other in sets[1:]:
        if other == versus and top_n is not None:
            both = rows(cur, "select * from marts.compare_pair(?, ?, ?)", [sets[0], other, top_n])
            result.metrics.extend({c: r[c] for c in METRIC_ROW_COLUMNS} for r in both if r["row_type"] == "metric")
            result.changed_items = [
                {c: v for c, v in r.items() if c in ("set_a", "set_b") or c not in (*METRIC_ROW_COLUMNS, "row_type")}
                for r in both
                if r["row_type"] == "item"
            ]
            continue
        result.metrics.extend(rows(cur, "select * from marts.compare_metrics(?, ?)", [sets[0], other]))
    # the reference column of the grid: its own values, nothing to test
    for row in [r for r in result.metrics if r["set_b"] == sets[1]]:
        result.metrics.append(
            {
                **dict.fromkeys(METRIC_COLUMNS),
                "set_a": sets[0],
                "set_b": sets[0],
                "metric": row["metric"],
                "metric_label": row["metric_label"],
                "metric_order": row["metric_order"],
                "direction": row["direction"],
                "value_b": row["value_a"],
                "is_reference": True,
            }
        )
    return result


def metrics_only(cur: Cursor, result: Comparison) -> Comparison:
    """Sets without items: per metric each set's value (history_set_metrics)
    beside the first's; the delta, its interval and the verdict only where
    the history computed them (history_metric_diffs, when the first set is
    the other's baseline). Nothing is paired or tested here."""
    result.paired = False
    reference = result.sets[0]
    for other in result.sets[1:]:
        result.metrics.extend(
            rows(
                cur,
                METRICS_ONLY_SQL,
                [reference, reference, reference, other],
            )
        )
    # the reference column: its own values, for every metric it has
    for row in rows(
        cur,
        "select metric, metric_label, metric_order, direction, metric_value from marts.history_set_metrics "
        "where set_id = ? order by metric_order",
        [reference],
    ):
        result.metrics.append(
            {
                **dict.fromkeys(METRIC_COLUMNS),
                "set_a": reference,
                "set_b": reference,
                "metric": row["metric"],
                "metric_label": row["metric_label"],
                "metric_order": row["metric_order"],
                "direction": row["direction"],
                "value_b": row["metric_value"],
                "is_reference": True,
            }
        )
    return result


def items(cur: Cursor, set_a: str, set_b: str, per_change: int | None = None) -> list[dict[str, Any]]:
    """compare_items(set_a, set_b): changed items first (pass->fail,
    fail->pass, changed scores by size), then unchanged, then unpaired, in
    the macro's order; with ``per_change`` the first per_change items of
    each change and its count n_change (compare_changed_items)."""
    if per_change is None:
        return rows(cur, "select * from marts.compare_items(?, ?)", [set_a, set_b])
    return rows(cur, "select * from marts.compare_changed_items(?, ?, ?)", [set_a, set_b, per_change])


def change_counts(cur: Cursor, set_a: str, set_b: str) -> dict[str, int]:
    """How many items of each change (pass_to_fail, ..., only_a, only_b)."""
    return {
        r["change"]: r["n"]
        for r in rows(
            cur, "select change, count(*) as n from marts.compare_items(?, ?) group by change", [set_a, set_b]
        )
    }


# ---------------------------------------------------------------- output


def _plain(value: Any) -> Any:
    """JSON-safe: NaN and infinities as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def metric_records(comparison: Comparison) -> list[dict[str, Any]]:
    """The tested rows (every other set against the first), in METRIC_COLUMNS."""
    return [{c: _plain(r.get(c)) for c in METRIC_COLUMNS} for r in comparison.metrics if not r.get("is_reference")]


def to_json(comparison: Comparison) -> str:
    return json.dumps(
        {
            "agent": comparison.agent,
            "reference": comparison.sets[0],
            "paired": comparison.paired,
            **({} if comparison.paired else {"note": METRICS_ONLY}),
            "sets": [{"set_id": s, "n_items": comparison.n_items[s]} for s in comparison.sets],
            "metrics": metric_records(comparison),
        },
        ensure_ascii=False,
        indent=2,
    )


def to_csv(records: list[dict[str, Any]], columns: tuple[str, ...] | list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow({c: "" if record.get(c) is None else record.get(c) for c in columns})
    return out.getvalue()


def _num(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def _p(value: Any) -> str:
    if value is None:
        return "-"
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def to_text(comparison: Comparison) -> str:
    """A table per other set: metric, both values, delta, its 95% interval,
    the test, p, Holm's p and the verdict; the pairing counts above it."""
    lines = [f"agent {comparison.agent}: {len(comparison.sets)} sets, reference (A) {comparison.sets[0]}"]
    if comparison.paired:
        lines += [
            "Δ = B - A over the paired items; 95% interval clustered by query (CR1);",
            "p: McNemar's exact test for pass_rate, else t with clusters - 1 df;",
            "Holm: p adjusted across the metrics of each comparison.",
        ]
    else:
        lines.append(METRICS_ONLY + ".")
    header = ("metric", "A", "B", "Δ", "95% interval", "test", "p", "Holm p", "verdict")
    for other in comparison.sets[1:]:
        tested = [r for r in comparison.metrics if r["set_b"] == other and not r.get("is_reference")]
        lines.append("")
        lines.append(f"B = {other}")
        if tested and comparison.paired:
            first = tested[0]
            lines.append(
                f"  items: {first['n_paired']} paired, {first['n_only_a']} only in A, {first['n_only_b']} only in B; "
                f"pass→fail {first['n_pass_fail']}, fail→pass {first['n_fail_pass']}"
            )
        table = [header]
        for r in tested:
            interval = "-" if r["ci_low"] is None else f"[{_num(r['ci_low'])}, {_num(r['ci_high'])}]"
            table.append(
                (
                    r["metric"],
                    _num(r["value_a"]),
                    _num(r["value_b"]),
                    _num(r["delta"]),
                    interval,
                    r["test"] or "-",
                    _p(r["p_value"]),
                    _p(r["p_holm"]),
                    r["verdict"] or "-",
                )
            )
        widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
        for row in table:
            lines.append("  " + "  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip())
    return "\n".join(lines)
