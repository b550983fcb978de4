"""End to end on tests/fixtures/recruit_basic: every number worked out by hand from SPEC §4.

recruit_agent_basic.jsonl has 13 physical lines: 9 items, a blank line (10,
not a record) and 3 deliberately bad lines. Per item (latency rubric
single: <=5 -> 5, <=8 -> 4, <=10 -> 3, <=15 -> 2, <=20 -> 1; multi: <=20 -> 5 ...
>60 -> 0; accuracy band: 1.0 -> 5, >=0.75 -> 4, >=0.5 -> 3, >=0.25 -> 2, >0 -> 1):

L1 Q1 1/1 SINGLE PERFECT -> intent 5; @checks 3/4 (female filter ok, contains
   female ok, totalCount 12 >= 10 ok, message contains 남성 fails) = 0.75 -> 4;
   label derived 조회 -> VIEW; 4.2 s -> 5; stability 5; signature S1
L2 Q2 1/1 SINGLE PARTIAL -> 3; @checks 4/4 ([*].actionType == CREATE,
   [1].setting.order 2 > 1, name in [서류 전형, 면접], error null not_exists)
   = 1.0 -> 5; 추가 -> ADD; 5.0 s -> 5; stability 5; signature S2 (2 elements)
L3 Q3 1/1 MULTI FAILED -> 0; item error (timeout) -> status error,
   accuracy 0 although accuracyChecks 1/1; label ERROR; 61 s -> 0;
   stability 0; EMPTY
L4 Q4 1/1 no class -> SINGLE; raw is malformed JSON -> error, intent (status)
   0, @check -> raw_unparseable 0/1, accuracy 0; latency_ms 2500 -> 2.5 s -> 5;
   ERROR; stability 0; EMPTY
L5 Q1 2/1 GOOD -> 4; accuracyChecks win over its @check: 1/2 = 0.5 -> 3;
   intentLabel VIEW given; latency_ms 8000 -> 8.0 s -> 4; keys and setting
   keys reordered -> S1
L6 Q2 2/1 'single' / 'related_but_wrong' (case-insensitive) -> 1; @checks
   2/5 ([*] CREATE ok, [*].setting.order >= 3 fails, planId != p2 fails,
   totalCount exists fails, dataUIList exists ok) = 0.4 -> 2; 등록 -> ADD;
   5.01 s -> 4; elements reversed -> S2
L7 Q3 2/1 MULTI no verdict, ok -> 5; @checks 3/3 (nodeType, targets[2],
   movedCount "3" == 3 numerically) -> 5; 이동 -> MOVE; 20.0 s -> 5; S4
L8 Q1 3/1 no verdict, message has 원하시면 -> partial -> 4; @checks 0/2
   (path not found on an empty list, `~=` invalid) -> 0; CLARIFY; 12.5 s -> 2;
   stability 5; EMPTY
L9 Q2 3/1 WEAK -> 2; accuracyChecks 1/5 = 0.2 -> 1; UPDATE given;
   responseTimeSec 6.0 wins over latency_ms 3000 -> 4; only element a -> S3
L11 not JSON -> invalid_json; L12 no queryId -> missing_required_field;
L13 blank itemId -> missing_item_id.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from agent_eval import runner
from agent_eval.cli import EXIT_REJECTED
from conftest import PROJECT_DIR

SET = "2026-11-01/recruit_agent_basic.jsonl"
FIXTURE_FILE = Path(__file__).parent / "fixtures" / "recruit_basic" / SET
RECRUIT_TABLES = [
    "marts.recruit_item_scores",
    "marts.recruit_check_results",
    "marts.recruit_query_consistency",
    "marts.recruit_round_scores",
    "marts.recruit_set_scores",
    "marts.recruit_latency_distribution",
    "ops.rejected_rows",
    "ops.file_reconciliation",
]


@pytest.fixture(scope="module")
def built(module_built):
    wh, code = module_built("recruit_basic")
    assert code == EXIT_REJECTED  # three lines are rejected on purpose
    return wh


def approx(value: F) -> pytest.approx:
    return pytest.approx(float(value), abs=1e-9)


def test_item_scores(built):
    rows = built.query(
        "select line_number, query_id, round, status, intent_source, intent_score,"
        " check_source, n_checks, n_checks_passed, accuracy_reason, accuracy_score,"
        " intent_label, intent_label_source, latency_class, latency_source, latency_sec,"
        " latency_score, stability_score"
        " from marts.recruit_item_scores where set_id = ? order by line_number",
        [SET],
    )
    assert rows == [
        (
            1,
            "Q1",
            "1/1",
            "ok",
            "verdict",
            5,
            "expected_result",
            4,
            3,
            "checks",
            4,
            "VIEW",
            "derived",
            "SINGLE",
            "response_time_sec",
            4.2,
            5,
            5,
        ),
        (
            2,
            "Q2",
            "1/1",
            "ok",
            "verdict",
            3,
            "expected_result",
            4,
            4,
            "checks",
            5,
            "ADD",
            "derived",
            "SINGLE",
            "response_time_sec",
            5.0,
            5,
            5,
        ),
        (
            3,
            "Q3",
            "1/1",
            "error",
            "verdict",
            0,
            "accuracy_checks",
            1,
            1,
            "error",
            0,
            "ERROR",
            "derived",
            "MULTI",
            "response_time_sec",
            61.0,
            0,
            0,
        ),
        (
            4,
            "Q4",
            "1/1",
            "error",
            "status",
            0,
            "expected_result",
            1,
            0,
            "raw_unparseable",
            0,
            "ERROR",
            "derived",
            "SINGLE",
            "latency_ms",
            2.5,
            5,
            0,
        ),
        (
            5,
            "Q1",
            "2/1",
            "ok",
            "verdict",
            4,
            "accuracy_checks",
            2,
            1,
            "checks",
            3,
            "VIEW",
            "given",
            "SINGLE",
            "latency_ms",
            8.0,
            4,
            5,
        ),
        (
            6,
            "Q2",
            "2/1",
            "ok",
            "verdict",
            1,
            "expected_result",
            5,
            2,
            "checks",
            2,
            "ADD",
            "derived",
            "SINGLE",
            "response_time_sec",
            5.01,
            4,
            5,
        ),
        (
            7,
            "Q3",
            "2/1",
            "ok",
            "status",
            5,
            "expected_result",
            3,
            3,
            "checks",
            5,
            "MOVE",
            "derived",
            "MULTI",
            "response_time_sec",
            20.0,
            5,
            5,
        ),
        (
            8,
            "Q1",
            "3/1",
            "partial",
            "status",
            4,
            "expected_result",
            2,
            0,
            "checks",
            0,
            "CLARIFY",
            "derived",
            "SINGLE",
            "response_time_sec",
            12.5,
            2,
            5,
        ),
        (
            9,
            "Q2",
            "3/1",
            "ok",
            "verdict",
            2,
            "accuracy_checks",
            5,
            1,
            "checks",
            1,
            "UPDATE",
            "given",
            "SINGLE",
            "response_time_sec",
            6.0,
            4,
            5,
        ),
    ]
    ratios = built.query(
        "select line_number, accuracy_ratio from marts.recruit_item_scores where set_id = ? order by 1",
        [SET],
    )
    # 3/4, 4/4, 1/1, 0/1, 1/2, 2/5, 3/3, 0/2, 1/5
    assert ratios == [(1, 0.75), (2, 1.0), (3, 1.0), (4, 0.0), (5, 0.5), (6, 0.4), (7, 1.0), (8, 0.0), (9, 0.2)]


def test_ui_signatures_ignore_key_and_element_order(built):
    sig = dict(built.query("select line_number, ui_signature from marts.recruit_item_scores where set_id = ?", [SET]))
    # canonical JSON: element keys sorted, value.nodeId / value.nodeType lifted,
    # missing filterType is null
    s1 = (
        '[{"actionType":"APPLY","filterType":"GENDER","formType":"FILTER","nodeId":"n1",'
        '"nodeType":"GENDER","planId":"p1","setting":{"operator":"eq","values":["female"]}}]'
    )
    assert sig[1] == s1
    assert sig[5] == s1  # every key reordered
    assert sig[2] == sig[6]  # the two elements reversed
    assert sig[9] != sig[2]  # one element only
    assert sig[3] == sig[4] == sig[8] == "EMPTY"


def test_check_results(built):
    rows = built.query(
        "select line_number, check_seq, check_source, check_op, is_passed, reason"
        " from marts.recruit_check_results where set_id = ? order by 1, 2",
        [SET],
    )
    assert len(rows) == 4 + 4 + 1 + 1 + 2 + 5 + 3 + 2 + 5  # = 27
    by_key = {(r[0], r[1]): r[2:] for r in rows}
    assert by_key[(1, 4)] == ("expected_result", "contains", False, "value_mismatch")
    assert by_key[(2, 4)] == ("expected_result", "not_exists", True, "passed")
    assert by_key[(4, 1)] == ("expected_result", "exists", False, "raw_unparseable")
    assert by_key[(5, 2)] == ("accuracy_checks", None, False, "reported_failed")
    assert by_key[(6, 2)] == ("expected_result", ">=", False, "value_mismatch")
    assert by_key[(6, 4)] == ("expected_result", "exists", False, "path_not_found")
    assert by_key[(7, 3)] == ("expected_result", "==", True, "passed")
    assert by_key[(8, 1)] == ("expected_result", "==", False, "path_not_found")
    assert by_key[(8, 2)] == ("expected_result", None, False, "invalid_check")
    # passed checks: 3 + 4 + 1 + 0 + 1 + 2 + 3 + 0 + 1 = 15
    assert sum(r[4] for r in rows) == 15


def test_query_consistency(built):
    rows = built.query(
        "select query_id, n_runs, ratio_a, ratio_b, consistency_score, mode_intent_label"
        " from marts.recruit_query_consistency where set_id = ? order by query_id",
        [SET],
    )
    assert rows == [
        # Q1 labels VIEW VIEW CLARIFY -> 2/3; signatures S1 S1 EMPTY -> 2/3;
        # (2/3 + 2/3) / 2 x 5 = 10/3
        ("Q1", 3, approx(F(2, 3)), approx(F(2, 3)), approx(F(10, 3)), "VIEW"),
        # Q2 labels ADD ADD UPDATE, signatures S2 S2 S3 -> 10/3
        ("Q2", 3, approx(F(2, 3)), approx(F(2, 3)), approx(F(10, 3)), "ADD"),
        # Q3 labels ERROR MOVE, signatures EMPTY S4 -> (1/2 + 1/2) / 2 x 5 = 2.5
        ("Q3", 2, 0.5, 0.5, 2.5, "ERROR"),
        # Q4 runs once: N < 2 -> 0, no ratios
        ("Q4", 1, None, None, 0.0, "ERROR"),
    ]


def test_round_scores(built):
    rows = built.query(
        "select round, n_items, intent_score, accuracy_score, stability_score, latency_score,"
        " latency_single_score, latency_multi_score"
        " from marts.recruit_round_scores where set_id = ? order by round_order",
        [SET],
    )
    assert rows == [
        # L1-L4: intent (5+3+0+0)/4, accuracy (4+5+0+0)/4, stability (5+5+0+0)/4,
        # latency (5+5+0+5)/4; single (5+5+5)/3, multi 0
        ("1/1", 4, 2.0, 2.25, 2.5, 3.75, 5.0, 0.0),
        # L5-L7: intent (4+1+5)/3, accuracy (3+2+5)/3, stability 5, latency (4+4+5)/3;
        # single (4+4)/2, multi 5
        ("2/1", 3, approx(F(10, 3)), approx(F(10, 3)), 5.0, approx(F(13, 3)), 4.0, 5.0),
        # L8-L9: intent (4+2)/2, accuracy (0+1)/2, stability 5, latency (2+4)/2; no multi
        ("3/1", 2, 3.0, 0.5, 5.0, 3.0, 3.0, None),
    ]


def test_set_scores_and_weighted_total(built):
    (row,) = built.dicts("select * from marts.recruit_set_scores where set_id = ?", [SET])
    intent = (F(2) + F(10, 3) + F(3)) / 3  # = 25/9, mean of the round means
    accuracy = (F(9, 4) + F(10, 3) + F(1, 2)) / 3  # = 73/36
    stability = (F(5, 2) + 5 + 5) / 3  # = 25/6
    latency = (F(15, 4) + F(13, 3) + 3) / 3  # = 133/36
    consistency = (F(10, 3) + F(10, 3) + F(5, 2) + 0) / 4  # = 55/24, Q4 counts as 0
    assert row["n_items"] == 9
    assert row["n_rounds"] == 3
    assert row["n_queries"] == 4
    assert row["n_queries_single_run"] == 1
    assert row["intent_score"] == approx(intent)
    assert row["accuracy_score"] == approx(accuracy)
    assert row["stability_score"] == approx(stability)
    assert row["latency_score"] == approx(latency)
    assert row["latency_single_score"] == approx((F(5) + 4 + 3) / 3)  # = 4
    assert row["latency_multi_score"] == approx((F(0) + 5) / 2)  # round 3/1 has no MULTI
    assert row["consistency_score"] == approx(consistency)
    # 0.20 x 25/9 + 0.10 x 55/24 + 0.30 x 73/36 + 0.20 x 133/36 + 0.20 x 25/6
    # = 0.5556 + 0.2292 + 0.6083 + 0.7389 + 0.8333 = 2.9653
    total = F(1, 5) * intent + F(1, 10) * consistency + F(3, 10) * accuracy + F(1, 5) * latency + F(1, 5) * stability
    assert row["weighted_total"] == approx(total)
    assert round(row["weighted_total"], 4) == 2.9653
    assert (row["n_checks"], row["n_checks_passed"], row["n_checks_invalid"]) == (27, 15, 1)
    assert (row["n_error"], row["n_raw_json_invalid"], row["n_intent_verdict"]) == (2, 1, 6)


def test_latency_distribution(built):
    rows = built.query(
        "select latency_class, latency_score, n_items from marts.recruit_latency_distribution"
        " where set_id = ? order by latency_class, latency_score desc",
        [SET],
    )
    # MULTI: L7 20 s -> 5, L3 61 s -> 0; SINGLE: 5 <- L1 L2 L4, 4 <- L5 L6 L9, 2 <- L8
    assert rows == [
        ("MULTI", 5, 1),
        ("MULTI", 4, 0),
        ("MULTI", 3, 0),
        ("MULTI", 2, 0),
        ("MULTI", 1, 0),
        ("MULTI", 0, 1),
        ("SINGLE", 5, 3),
        ("SINGLE", 4, 3),
        ("SINGLE", 3, 0),
        ("SINGLE", 2, 1),
        ("SINGLE", 1, 0),
        ("SINGLE", 0, 0),
    ]


def test_rejected_rows_and_reconciliation(built):
    assert built.query(
        "select kind, line_number, reason from ops.rejected_rows where source_file = ? order by 2", [SET]
    ) == [
        ("recruit_agent", 11, "invalid_json"),
        ("recruit_agent", 12, "missing_required_field"),
        ("recruit_agent", 13, "missing_item_id"),
    ]
    # 12 non-blank lines = 9 scored + 3 rejected
    assert built.query(
        "select n_data_records, n_raw_rows, n_valid_rows, n_rejected_rows, n_scored_rows"
        " from ops.file_reconciliation where source_file = ?",
        [SET],
    ) == [(12, 12, 9, 3, 9)]


def test_report(built):
    text = (built.paths.reports_dir / "recruit_agent" / "2026-11-01" / "recruit_agent_basic.md").read_text()
    for metric, score in [
        ("의도 충족", "2.78"),
        ("정확성", "2.03"),
        ("일관성", "2.29"),
        ("응답 속도(기본)", "4.00"),
        ("응답 속도(다중 도구)", "2.50"),
        ("안정성", "4.17"),
    ]:
        assert f"| {metric} | {score} |" in text
    assert "종합 점수(선택)" in text and "**2.97**" in text
    # failing checks and the least consistent query (Q4, run once) are listed
    # reasons with their labels (seed reason_labels)
    assert "| @check assistantMessage contains 남성 | 값 불일치 (`value_mismatch`) | 1 |" in text
    assert "| accuracyChecks: count | 실패로 보고됨 (`reported_failed`) | 1 |" in text
    lines = text.splitlines()
    first_query = lines[lines.index(next(x for x in lines if x.startswith("| Query ID"))) + 2]
    assert first_query.startswith("| Q4 |")
    assert "| 11 | JSON 형식 오류 (`invalid_json`) |" in text


def test_rerun_full_refresh_and_changed_file(built):
    """Runs last (module order): it rebuilds the module's warehouse. Models
    only (`dbt run`): the data tests already ran in the module's build. Each
    run is of the tables compared and every model they are built from
    (`+<table>`): what those tables hold depends on nothing else, so the
    models downstream of them (history, marts of other agents' sets) need
    not run again."""

    def snapshot() -> dict[str, list[tuple]]:
        return {t: built.query(f"select * from {t} order by all") for t in RECRUIT_TABLES}

    lineage = [f"+{table.split('.')[1]}" for table in RECRUIT_TABLES]

    def dbt_run(*extra: str) -> None:
        command = ["run", "--project-dir", str(PROJECT_DIR), "--select", *lineage, *extra]
        runner.run_dbt(built.paths, command, quiet=True)

    before = snapshot()
    dbt_run()
    assert snapshot() == before  # nothing new: nothing changes
    dbt_run("--full-refresh")
    assert snapshot() == before  # the incremental path equals the full refresh

    # the file changes at the same path: its set is replaced (L9 dropped)
    path = built.drops / SET
    kept = [line for line in path.read_text(encoding="utf-8").splitlines() if '"itemId": "i09"' not in line]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    dbt_run()
    assert built.query("select count(*) from marts.recruit_item_scores where set_id = ?", [SET]) == [(8,)]
    assert built.query(
        "select count(distinct file_sha256), count(*) from marts.recruit_check_results where set_id = ?", [SET]
    ) == [(1, 27 - 5)]  # L9's five accuracyChecks are gone
    # Q2 now runs twice: labels ADD ADD, signatures S2 S2 -> 5
    assert built.query(
        "select n_runs, consistency_score from marts.recruit_query_consistency where set_id = ? and query_id = 'Q2'",
        [SET],
    ) == [(2, 5.0)]
    assert json.loads(FIXTURE_FILE.read_text(encoding="utf-8").splitlines()[8])["itemId"] == "i09"
