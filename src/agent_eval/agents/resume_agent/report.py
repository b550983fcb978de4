"""The resume agent's report: one markdown file per set (SPEC 3.7),
rendered by agent_eval.report from TEMPLATE with context()."""

from __future__ import annotations

from typing import Any

import duckdb

from agent_eval.db import rows

TEMPLATE = "report.md.j2"


def context(con: duckdb.DuckDBPyConnection, set_id: str) -> dict[str, Any]:
    """The mart rows of one resume set's report (SPEC 3.7), with the
    template's tables pivoted from them."""
    one = [set_id]
    set_row = rows(con, "select * from marts.resume_set_scores where set_id = ?", one)[0]
    ctx = {
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
            "select p.status, p.status_reason, l.label_ko as status_reason_label, p.error_message, p.n_items, "
            "p.tracks from marts.rpt_resume_risk_patterns as p "
            "left join rubric.reason_labels as l on l.reason = p.status_reason "
            "where p.set_id = ? and p.pattern_rank <= 5 order by p.pattern_rank",
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
            "select r.line_number, r.reason, l.label_ko as reason_label, r.reason_detail from ops.rejected_rows as r "
            "left join rubric.reason_labels as l on l.reason = r.reason "
            "where r.source_file = ? and r.is_current order by r.line_number",
            one,
        ),
        # the tracks' display labels (`Track 1`): the one spelling of a track
        "track_labels": {
            r["track"]: r["track_label"]
            for r in rows(con, "select track, track_label from rubric.resume_track_rubrics order by track")
        },
    }
    ctx.update(tables(ctx))
    return ctx


def _by_track(rows: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {row["track"]: row for row in rows}


def tables(ctx: dict[str, Any]) -> dict[str, Any]:
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
    # a pattern's tracks ("1, 3" in the mart) by their labels
    for pattern in ctx["risk_patterns"]:
        pattern["track_labels"] = ", ".join(
            ctx["track_labels"].get(int(t), t) for t in (pattern["tracks"] or "").split(", ") if t
        )
    return {"per_round": per_round, "distribution": distribution}
