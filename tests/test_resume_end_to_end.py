"""End to end on tests/fixtures/basic: every number worked out by hand from SPEC §3.

The fixture (resume_agent_basic.csv) has 16 data records; line numbers are
physical lines (the header is line 1, Q2's 응답 spans lines 3-4):

round 1/1                                   round 2/1
L2  Q1 t1 ok       4.00s single->5          L10 Q1 t1 ok (LLM 4.5)  5.01s ->4
L3  Q2 t2 partial  8.00s single->4          L11 Q2 t2 error (bad JSON) none ->0
L5  Q3 t3 error(오류) 61s multi->0          L12 Q3 t3 ok (LLM '6' ignored) 20s multi->5
L6  Q4 t1 empty    20.01s single->0         L13 Q4 t1 ok (blank Raw JSON, 응답) none ->0
L7  Q6 t2 error(오류) 10s single->3         L14 Q1 t1 empty, duplicate  3s ->5
L8  Q7 t3 ok (error false) 20.01s multi->4  L15 Q6 t2 error (raw.error)  15s ->2
L9  Q8 t1 partial  15s single->2            L16 Q7 t3 ok (error '  ')  60s multi->1
                                            L17 Q5 'Track 9' -> rejected invalid_track
                                            L18 ragged (3 fields) -> rejected ragged_row
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_eval.cli import EXIT_REJECTED

SET = "2026-11-01/resume_agent_basic.csv"


@pytest.fixture(scope="module")
def built(module_built):
    wh, code = module_built("basic")
    assert code == EXIT_REJECTED  # two rows are rejected on purpose
    return wh


def test_item_status_and_scores(built):
    rows = built.query(
        "select line_number, query_id, round, track, status, status_reason, label_source,"
        " raw_json_valid, is_duplicate, intent_score, accuracy_score, stability_score,"
        " latency_sec, latency_rubric, latency_score"
        " from marts.resume_item_scores where set_id = ? order by line_number",
        [SET],
    )
    expected = [
        (2, "Q1", "1/1", 1, "ok", "ok", "heuristic", True, False, 5, 5, 5, 4.0, "single", 5),
        (3, "Q2", "1/1", 2, "partial", "partial_keyword", "heuristic", True, False, 4, 4, 5, 8.0, "single", 4),
        (5, "Q3", "1/1", 3, "error", "error_column", "heuristic", True, False, 0, 0, 0, 61.0, "multi", 0),
        (6, "Q4", "1/1", 1, "empty", "empty_response", "heuristic", True, False, 0, 0, 0, 20.01, "single", 0),
        (7, "Q6", "1/1", 2, "error", "error_column", "heuristic", True, False, 0, 0, 0, 10.0, "single", 3),
        (8, "Q7", "1/1", 3, "ok", "ok", "heuristic", True, False, 5, 5, 5, 20.01, "multi", 4),
        (9, "Q8", "1/1", 1, "partial", "partial_keyword", "heuristic", True, False, 4, 4, 5, 15.0, "single", 2),
        (10, "Q1", "2/1", 1, "ok", "ok", "llm", True, False, 4.5, 4.5, 5, 5.01, "single", 4),
        (11, "Q2", "2/1", 2, "error", "raw_json_invalid", "heuristic", False, False, 0, 0, 0, None, "single", 0),
        (12, "Q3", "2/1", 3, "ok", "ok", "heuristic", True, False, 5, 5, 5, 20.0, "multi", 5),
        (13, "Q4", "2/1", 1, "ok", "ok", "heuristic", False, False, 5, 5, 5, None, "single", 0),
        (14, "Q1", "2/1", 1, "empty", "empty_response", "heuristic", True, True, 0, 0, 0, 3.0, "single", 5),
        (15, "Q6", "2/1", 2, "error", "raw_error", "heuristic", True, False, 0, 0, 0, 15.0, "single", 2),
        (16, "Q7", "2/1", 3, "ok", "ok", "heuristic", True, False, 5, 5, 5, 60.0, "multi", 1),
    ]
    assert rows == expected


def test_llm_score_flags(built):
    rows = built.query(
        "select line_number, llm_score_state, is_llm_score_invalid from marts.resume_item_scores"
        " where set_id = ? and llm_score_state <> 'blank' order by line_number",
        [SET],
    )
    assert rows == [(10, "valid", False), (12, "out_of_range", True)]


def test_round_scores(built):
    rows = built.query(
        "select round, n_items, intent_score, accuracy_score, stability_score, latency_score, latency_sec"
        " from marts.resume_round_scores where set_id = ? order by round_order",
        [SET],
    )
    # 1/1: intent (5+4+0+0+0+5+4)/7 = 18/7; stability 4 passes x 5 / 7 = 20/7;
    #      latency (5+4+0+0+3+4+2)/7 = 18/7; seconds (4+8+61+20.01+10+20.01+15)/7
    # 2/1: intent (4.5+0+5+5+0+0+5)/7 = 19.5/7; stability 20/7;
    #      latency (4+0+5+0+5+2+1)/7 = 17/7; seconds (5.01+20+3+15+60)/5 (two missing)
    assert [r[:2] for r in rows] == [("1/1", 7), ("2/1", 7)]
    r1, r2 = rows
    assert r1[2:6] == pytest.approx((18 / 7, 18 / 7, 20 / 7, 18 / 7))
    assert r1[6] == pytest.approx(138.02 / 7)
    assert r2[2:6] == pytest.approx((19.5 / 7, 19.5 / 7, 20 / 7, 17 / 7))
    assert r2[6] == pytest.approx(103.01 / 5)


def test_set_scores_are_means_of_rounds(built):
    (row,) = built.dicts("select * from marts.resume_set_scores where set_id = ?", [SET])
    assert row["n_items"] == 14
    assert row["n_rounds"] == 2
    assert row["n_queries"] == 7
    assert row["rounds"] == "1/1,2/1"
    assert (row["n_track_1"], row["n_track_2"], row["n_track_3"]) == (6, 4, 4)
    assert row["intent_score"] == pytest.approx((18 / 7 + 19.5 / 7) / 2)
    assert row["stability_score"] == pytest.approx(20 / 7)
    assert row["latency_score"] == pytest.approx((18 / 7 + 17 / 7) / 2)
    assert row["latency_sec"] == pytest.approx((138.02 / 7 + 103.01 / 5) / 2)
    # pairs: Q1 pass/pass, Q2 partial/error, Q3 error/ok, Q4 empty/ok,
    # Q6 error/error, Q7 ok/ok -> 5 x (2 + 1) / 6
    assert row["consistency_score"] == pytest.approx(2.5)
    assert row["n_consistency_pairs"] == 6
    assert row["n_unpaired_queries"] == 1  # Q8 ran in 1/1 only
    assert row["n_duplicate_rows"] == 1
    assert row["n_raw_json_invalid"] == 1
    assert row["n_llm_scored"] == 1
    assert row["n_llm_score_invalid"] == 1


def test_consistency_pairs_use_first_line_of_duplicates(built):
    rows = built.query(
        "select query_id, track, status_a, status_b, outcome from marts.resume_consistency_pairs"
        " where set_id = ? order by query_id",
        [SET],
    )
    assert rows == [
        ("Q1", 1, "ok", "ok", "both_pass"),  # line 10, not the duplicate line 14
        ("Q2", 2, "partial", "error", "mismatch"),
        ("Q3", 3, "error", "ok", "mismatch"),
        ("Q4", 1, "empty", "ok", "mismatch"),
        ("Q6", 2, "error", "error", "both_fail"),
        ("Q7", 3, "ok", "ok", "both_pass"),
    ]
    (pair,) = built.query(
        "select n_pairs, n_both_pass, n_both_fail, n_mismatch, n_unpaired, consistency_score"
        " from marts.resume_consistency_round_pairs where set_id = ?",
        [SET],
    )
    # unpaired: 7 queries in 1/1 + 6 in 2/1 - 2 x 6 pairs = 1
    assert pair == (6, 2, 1, 3, 1, 2.5)


def test_per_track_tables(built):
    rows = built.dicts("select * from marts.resume_set_track_scores where set_id = ? order by track", [SET])
    t1, t2, t3 = rows
    # Track 1: 1/1 Q1 5, Q4 0, Q8 4 -> 3; 2/1 Q1 4.5, Q4 5, dup 0 -> 9.5/3
    assert t1["intent_score"] == pytest.approx((3 + 9.5 / 3) / 2)
    # seconds: 1/1 (4+20.01+15)/3, 2/1 (5.01+3)/2 (Q4 has none)
    assert t1["latency_sec"] == pytest.approx(((4 + 20.01 + 15) / 3 + (5.01 + 3) / 2) / 2)
    assert t1["latency_score"] == pytest.approx((7 / 3 + 9 / 3) / 2)
    # Track 3: seconds 1/1 (61+20.01)/2, 2/1 (20+60)/2; scores (0+4)/2, (5+1)/2
    assert t3["latency_sec"] == pytest.approx(((61 + 20.01) / 2 + 40) / 2)
    assert t3["latency_score"] == pytest.approx((2 + 3) / 2)
    assert t3["latency_rubric"] == "multi"
    # each track has one agreeing and one mismatching pair -> 5 x 1/2
    assert [t["consistency_score"] for t in rows] == pytest.approx([2.5, 2.5, 2.5])
    assert [t["n_pairs"] for t in rows] == [2, 2, 2]
    assert t2["n_both_fail"] == 1


def test_latency_distribution(built):
    rows = built.query(
        "select latency_score, n_items from marts.resume_latency_distribution"
        " where set_id = ? and scope = 'round' and round = '1/1' and latency_rubric = 'single'"
        " order by latency_score desc",
        [SET],
    )
    # single rubric in 1/1: Q1 5, Q2 4, Q6 3, Q8 2, Q4 0
    assert rows == [(5, 1), (4, 1), (3, 1), (2, 1), (1, 0), (0, 1)]
    rows = built.query(
        "select latency_score, n_items from marts.resume_latency_distribution"
        " where set_id = ? and scope = 'set' and latency_rubric = 'multi'"
        " order by latency_score desc",
        [SET],
    )
    # multi over the set: Q3 0, Q7 4 | Q3 5, Q7 1
    assert rows == [(5, 1), (4, 1), (3, 0), (2, 0), (1, 1), (0, 1)]


def test_rejected_rows_and_reconciliation(built):
    rows = built.query(
        "select line_number, reason, raw_text from ops.rejected_rows where source_file = ? order by line_number",
        [SET],
    )
    assert [(r[0], r[1]) for r in rows] == [(17, "invalid_track"), (18, "ragged_row")]
    assert "Track 9" in rows[0][2]
    assert rows[1][2] == "Q9,ragged,row\n"
    (rec,) = built.query(
        "select n_data_records, n_raw_rows, n_valid_rows, n_rejected_rows, n_scored_rows"
        " from ops.file_reconciliation where source_file = ?",
        [SET],
    )
    assert rec == (16, 16, 14, 2, 14)


GOLDEN = Path(__file__).parent / "golden" / "resume_agent_basic.md"


def test_report_matches_golden_file(built):
    """The golden file was reviewed line by line against the numbers above.
    Regenerate with UPDATE_GOLDEN=1 after a deliberate template change."""
    report = built.paths.reports_dir / "resume_agent" / "2026-11-01" / "resume_agent_basic.md"
    text = report.read_text(encoding="utf-8")
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
    assert "| 1/1 ↔ 2/1 | 6 | 2 | 1 | 3 | 1 | 2.50 |" in text
