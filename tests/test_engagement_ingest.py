"""Engagement files through the common loader, and the shipped JSON Schemas."""

from __future__ import annotations

import json
from pathlib import Path

from agent_eval import ingest, schemas
from conftest import FIXTURES, PROJECT_DIR, observe_and_load

RUN = "2026-11-01/engagement/run-1"


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def by_path(rows):
    return {r["source_file"]: r for r in rows}


def test_engagement_paths_match_their_kinds():
    assert ingest.match_kind(f"{RUN}/agent-1/actions.jsonl").name == "engagement_actions"
    assert ingest.match_kind(f"{RUN}/expected.json").name == "engagement_expected"
    # deeper or shallower layouts are not engagement input
    assert ingest.match_kind(f"{RUN}/actions.jsonl") is None
    assert ingest.match_kind(f"{RUN}/a/b/actions.jsonl") is None


def test_expected_json_is_checked_against_the_schema(tmp_path):
    write(tmp_path, f"{RUN}/expected.json", '{"expected": {"likeCount": 3}}')
    write(tmp_path, "2026-11-01/engagement/run-2/expected.json", '{"expected": {}}')
    write(tmp_path, "2026-11-01/engagement/run-3/expected.json", '{"expected": {"likeRate": 2}}')
    write(tmp_path, "2026-11-01/engagement/run-4/expected.json", '{"expected": ')
    rows = by_path(ingest.manifest_rows(tmp_path))
    assert (rows[f"{RUN}/expected.json"]["status"], rows[f"{RUN}/expected.json"]["n_data_records"]) == ("loaded", 1)
    assert rows["2026-11-01/engagement/run-2/expected.json"]["reject_reason"].startswith("no metric in 'expected'")
    assert rows["2026-11-01/engagement/run-3/expected.json"]["reject_reason"] == (
        "invalid against expected-schema.json: at $.expected.likeRate: 2 is greater than the maximum of 1"
    )
    assert rows["2026-11-01/engagement/run-4/expected.json"]["reject_reason"].startswith("not valid JSON")


def test_identical_engagement_files_in_two_runs_both_load(tmp_path):
    """The same ground truth serves every nightly run: not a 'repeat'."""
    same = '{"expected": {"likeCount": 3}}'
    write(tmp_path, f"{RUN}/expected.json", same)
    write(tmp_path, "2026-11-02/engagement/run-1/expected.json", same)
    line = '{"action": {"type": "act", "status": "ok"}, "result": {"liked": true}}\n'
    write(tmp_path, f"{RUN}/a/actions.jsonl", line)
    write(tmp_path, f"{RUN}/b/actions.jsonl", line)
    rows = ingest.manifest_rows(tmp_path)
    assert {r["status"] for r in rows} == {"loaded"}
    assert len(rows) == 4


def test_action_lines_keep_malformed_ones_with_reason(tmp_path):
    drops = tmp_path / "drops"
    write(drops, f"{RUN}/a/actions.jsonl", '{"action": {"type": "act"}}\n\n{"action": \n["not", "an", "object"]\n')
    ((row, rows),) = observe_and_load(drops, tmp_path / "landing")
    assert row["n_data_records"] == 3  # the blank line is not a record
    got = [(r["line_number"], r["reject_reason"], r["record_json"]) for r in rows]
    assert got[0] == (1, None, '{"action": {"type": "act"}}')
    assert got[1][0] == 3 and got[1][1].startswith("invalid_json: ")
    assert got[2] == (4, "invalid_json: line is not a JSON object", None)


def test_schemas_are_shipped_in_the_package_and_at_the_repository_root():
    for name in (schemas.EXPECTED_SCHEMA, schemas.RESULT_SCHEMA):
        assert json.loads((PROJECT_DIR / "schemas" / name).read_text(encoding="utf-8")) == schemas.load_schema(name)


def test_bundled_expected_files_conform_except_the_deliberately_bad_one():
    files = sorted((PROJECT_DIR / "data" / "drops").rglob("expected.json")) + sorted(
        (FIXTURES / "engagement").rglob("expected.json")
    )
    problems = {
        f.relative_to(f.parents[3]).as_posix(): schemas.expected_problem(json.loads(f.read_text(encoding="utf-8")))
        for f in files
    }
    bad = {path for path, problem in problems.items() if problem}
    assert bad == {
        "2026-11-02/engagement/sim-20261102-02/expected.json",
        "2026-11-01/engagement/run-bad-expected/expected.json",
    }


def test_result_schema_rejects_what_the_spec_forbids():
    good = {
        "schemaVersion": "1.0",
        "evaluationId": "e",
        "runId": "r",
        "actual": {
            "totalActs": 1,
            "likeCount": 1,
            "commentCount": 0,
            "likeRate": 1,
            "commentRate": 0,
            "engagementCount": 1,
        },
        "metrics": {
            "likeCount": {"expected": 1, "actual": 1, "absError": 0, "relativeError": 0, "similarity": 1},
            "overallSimilarity": 1,
        },
        "interpretation": {"band": "very_similar", "label": "기대값과 매우 유사"},
        "perPersona": {},
    }
    assert schemas.result_problem(good) is None
    assert "schemaVersion" in schemas.result_problem({**good, "schemaVersion": "2.0"})
    assert "overallSimilarity" in schemas.result_problem({**good, "metrics": {"overallSimilarity": 1.2}})
    without_run = {k: v for k, v in good.items() if k != "runId"}
    assert "'runId' is a required property" in schemas.result_problem(without_run)
