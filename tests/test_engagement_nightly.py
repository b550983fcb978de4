"""SPEC §2.2 nightly semantics for engagement runs (a run spans several files).

A run is rebuilt when any of its files changes or is added; other runs are
not touched; re-running changes nothing; --full-refresh gives the same marts.
Fixture numbers: see test_engagement_end_to_end.py.
"""

from __future__ import annotations

import json

from agent_eval.cli import EXIT_REJECTED

D1 = "2026-11-01/engagement"
TABLES = [
    "marts.engagement_actions",
    "marts.engagement_run_scores",
    "marts.engagement_run_metrics",
    "marts.engagement_persona_scores",
    "marts.engagement_persona_metrics",
    "ops.file_reconciliation",
    "ops.rejected_rows",
]


def snapshot(wh) -> dict[str, list[tuple]]:
    return {t: wh.query(f"select * from {t} order by all") for t in TABLES}


def other_runs(snap: dict[str, list[tuple]], changed: set[str]) -> dict[str, list[tuple]]:
    """Rows of the marts whose set_id (first column) is not a changed run."""
    return {t: [r for r in rows if r[0] not in changed] for t, rows in snap.items() if t.startswith("marts.")}


def overall(wh, set_id):
    return wh.query(
        "select total_acts, like_count, overall_similarity, interpretation_band"
        " from marts.engagement_run_scores where set_id = ?",
        [set_id],
    )[0]


def test_runs_are_rebuilt_when_one_of_their_files_changes(built):
    warehouse, code = built("engagement")
    assert code == EXIT_REJECTED
    first = snapshot(warehouse)
    shas = dict(warehouse.query("select set_id, run_sha256 from marts.engagement_run_scores"))

    # re-running with nothing new changes nothing
    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    assert snapshot(warehouse) == first

    # 1. a changed actions.jsonl: run-rates gets a 9th act, liked
    #    likeRate 6/9 = 0.666667 vs 0.5 -> sim 1 - 0.166667 = 0.833333
    #    commentRate 1/9 = 0.111111 vs 0.2 -> sim 1 - 0.088889 = 0.911111
    #    overall (0.833333 x 1 + 0.911111 x 3) / 4 = 3.566667 / 4 = 0.891667
    actions = warehouse.drops / D1 / "run-rates" / "agent-x" / "actions.jsonl"
    with actions.open("a", encoding="utf-8") as handle:
        handle.write(
            json.dumps({"action": {"type": "act", "status": "ok"}, "result": {"liked": True, "commented": False}})
            + "\n"
        )
    # 2. an agent added late to run-expected-zero: 4 more acts, none liked
    #    8 acts, 1 liked: likeCount sim 0, commentCount sim 1,
    #    likeRate 1/8 = 0.125 -> sim 0.875; (0 x 0.5 + 1 x 0.5 + 0.875 x 1) / 2 = 0.6875
    late = warehouse.drops / D1 / "run-expected-zero" / "agent-w" / "actions.jsonl"
    late.parent.mkdir()
    late.write_text(
        "".join(
            json.dumps({"action": {"type": "act", "status": "ok"}, "result": {"liked": False}}) + "\n" for _ in range(4)
        ),
        encoding="utf-8",
    )
    # 3. a changed expected.json: run-worked weighs likeCount 3, commentCount 1
    #    (0.9 x 3 + 0.8 x 1) / 4 = 3.5 / 4 = 0.875
    expected = warehouse.drops / D1 / "run-worked" / "expected.json"
    doc = json.loads(expected.read_text(encoding="utf-8"))
    doc["weights"] = {"likeCount": 3, "commentCount": 1}
    expected.write_text(json.dumps(doc), encoding="utf-8")

    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    changed = {f"{D1}/run-rates", f"{D1}/run-expected-zero", f"{D1}/run-worked"}
    assert overall(warehouse, f"{D1}/run-rates") == (9, 6, 0.891667, "close")
    assert overall(warehouse, f"{D1}/run-expected-zero") == (8, 1, 0.6875, "needs_tuning")
    assert overall(warehouse, f"{D1}/run-worked") == (30, 27, 0.875, "close")
    new_shas = dict(warehouse.query("select set_id, run_sha256 from marts.engagement_run_scores"))
    assert {s for s in shas if shas[s] != new_shas[s]} == changed
    incremental = snapshot(warehouse)
    # the other runs' rows are untouched
    assert other_runs(incremental, changed) == other_runs(first, changed)
    # the earlier versions stay in raw history, superseded
    assert warehouse.query("select source_file from ops.load_log where is_superseded order by 1") == [
        (f"{D1}/run-rates/agent-x/actions.jsonl",),
        (f"{D1}/run-worked/expected.json",),
    ]

    # --full-refresh rebuilds the same marts from raw history
    assert warehouse.build(full_refresh=True, data_tests=False) == EXIT_REJECTED
    assert snapshot(warehouse) == incremental
