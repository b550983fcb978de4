"""Engagement (SPEC §5) end to end on tests/fixtures/engagement, by hand.

2026-11-01/engagement/
  run-worked (the source's worked example)
    agent-a/actions.jsonl  24 lines: 12 act/ok personaId p-20s (11 liked,
        5 commented), 8 act/ok persona p-30s (7 liked, 3 commented),
        2 non-act (view, scroll; one liked: ignored), 1 act with status
        error (liked + commented: ignored), line 7 malformed -> rejected
    agent-b/actions.jsonl  12 lines, no persona field -> persona agent-b:
        1 session_start line without action (not_act), 10 act/ok (9 liked,
        4 commented), line 12 liked "yes" -> rejected invalid_result
    totalActs 12 + 8 + 10 = 30, likeCount 11 + 7 + 9 = 27,
    commentCount 5 + 3 + 4 = 12; likeRate 27/30 = 0.9, commentRate 0.4
    expected likeCount 30, commentCount 10 (default weights 0.5 / 0.5):
      likeCount    |27-30| = 3, rel 3/30 = 0.1, sim 1 - 0.1 = 0.9
      commentCount |12-10| = 2, rel 2/10 = 0.2, sim 0.8
      overall (0.9 x 0.5 + 0.8 x 0.5) / 1.0 = 0.85 -> close
    perPersona p-20s likeCount 10: actual 11 -> sim 1 - 1/10 = 0.9
               p-40s likeCount 5: no line -> actual 0, sim 1 - 5/5 = 0
  run-rates: 8 acts, 5 liked, 1 commented; expected likeRate 0.5,
    commentRate 0.2, weights likeRate 1, commentRate 3:
      likeRate 5/8 = 0.625: abs 0.125, rel 0.125/0.5 = 0.25, sim 0.875
      commentRate 1/8 = 0.125: abs 0.075, rel 0.075/0.2 = 0.375, sim 0.925
      overall (0.875 x 1 + 0.925 x 3) / 4 = 3.65 / 4 = 0.9125 -> very_similar
  run-zero-weight: 10 acts, 2 liked, 4 commented; expected likeRate 0.4,
    commentRate 0.1, default weights 0 + 0 -> plain mean:
      likeRate 0.2: abs 0.2, rel 0.5, sim 0.8; commentRate 0.4: abs 0.3,
      rel 3, sim 0.7; overall (0.8 + 0.7) / 2 = 0.75 -> close (fallback)
  run-expected-zero: 4 acts, 1 liked, 0 commented; expected likeCount 0,
    commentCount 0, likeRate 0, weights likeRate 1 (others default 0.5):
      likeCount: abs 1, rel 1 / max(0, 1) = 1, sim 0
      commentCount: abs 0, rel 0, sim 1
      likeRate 0.25: rel null (expected 0), sim 1 - 0.25 = 0.75
      overall (0 x 0.5 + 1 x 0.5 + 0.75 x 1) / 2 = 0.625 -> needs_tuning
  run-bad-expected: expected.json has no metric -> rejected file; the run's
    3 acts (1 liked, 1 commented) are listed, state no_expected
2026-11-02/engagement/run-worked: the same run id on another night, with
  byte-identical expected.json: 5 acts, 5 liked, 1 commented:
      likeCount |5-30| = 25, sim 1 - 25/30 = 0.166667
      commentCount |1-10| = 9, sim 0.1
      overall (0.1666667 + 0.1) / 2 = 0.133333 -> large_gap
"""

from __future__ import annotations

import pytest

from agent_eval.cli import EXIT_REJECTED

D1 = "2026-11-01/engagement"
WORKED = f"{D1}/run-worked"


@pytest.fixture(scope="module")
def built(module_built):
    wh, code = module_built("engagement")
    assert code == EXIT_REJECTED  # a rejected file and two rejected lines
    return wh


def metrics(wh, set_id):
    return {
        r["metric"]: (
            r["expected_value"],
            r["actual_value"],
            r["abs_error"],
            r["relative_error"],
            r["similarity"],
            r["weight"],
        )
        for r in wh.dicts("select * from marts.engagement_run_metrics where set_id = ?", [set_id])
    }


def run(wh, set_id):
    (row,) = wh.dicts("select * from marts.engagement_run_scores where set_id = ?", [set_id])
    return row


def test_worked_example_actuals_and_lines(built):
    r = run(built, WORKED)
    assert (r["total_acts"], r["like_count"], r["comment_count"]) == (30, 27, 12)
    assert (r["like_rate"], r["comment_rate"], r["engagement_count"]) == (0.9, 0.4, 39)
    # 24 + 12 lines: 2 rejected, 34 usable = 30 counted + 3 not_act + 1 not_ok
    assert (r["n_lines"], r["n_rejected_lines"], r["n_not_act"], r["n_not_ok"]) == (34, 2, 3, 1)
    assert (r["n_action_files"], r["expected_file"]) == (2, f"{WORKED}/expected.json")


def test_worked_example_similarity(built):
    assert metrics(built, WORKED) == {
        "likeCount": (30, 27, 3, 0.1, 0.9, 0.5),
        "commentCount": (10, 12, 2, 0.2, 0.8, 0.5),
    }
    r = run(built, WORKED)
    assert (r["overall_similarity"], r["weighting_method"], r["is_weight_fallback"]) == (0.85, "weighted", False)
    assert (r["interpretation_band"], r["interpretation_label"]) == ("close", "근접하지만 편차 존재")


def test_rates_with_weights_override(built):
    assert metrics(built, f"{D1}/run-rates") == {
        "likeRate": (0.5, 0.625, 0.125, 0.25, 0.875, 1.0),
        "commentRate": (0.2, 0.125, 0.075, 0.375, 0.925, 3.0),
    }
    r = run(built, f"{D1}/run-rates")
    assert (r["weight_sum"], r["overall_similarity"], r["interpretation_band"]) == (4.0, 0.9125, "very_similar")
    overrides = built.query(
        "select metric, default_weight, weight_override from marts.engagement_run_metrics"
        " where set_id = ? order by metric_order",
        [f"{D1}/run-rates"],
    )
    assert overrides == [("likeRate", 0.0, 1.0), ("commentRate", 0.0, 3.0)]


def test_zero_weight_fallback_is_a_plain_mean_and_flagged(built):
    assert metrics(built, f"{D1}/run-zero-weight") == {
        "likeRate": (0.4, 0.2, 0.2, 0.5, 0.8, 0.0),
        "commentRate": (0.1, 0.4, 0.3, 3.0, 0.7, 0.0),
    }
    r = run(built, f"{D1}/run-zero-weight")
    assert (r["weight_sum"], r["is_weight_fallback"], r["weighting_method"]) == (0.0, True, "equal_fallback")
    assert (r["overall_similarity"], r["interpretation_band"]) == (0.75, "close")


def test_expected_zero(built):
    assert metrics(built, f"{D1}/run-expected-zero") == {
        "likeCount": (0, 1, 1, 1, 0, 0.5),
        "commentCount": (0, 0, 0, 0, 1, 0.5),
        "likeRate": (0, 0.25, 0.25, None, 0.75, 1.0),
    }
    r = run(built, f"{D1}/run-expected-zero")
    assert (r["overall_similarity"], r["interpretation_band"]) == (0.625, "needs_tuning")


def test_personas_from_line_field_or_folder_and_expected_only(built):
    rows = built.query(
        "select persona, in_logs, in_expected, total_acts, like_count, comment_count,"
        " overall_similarity, interpretation_band"
        " from marts.engagement_persona_scores where set_id = ? order by persona",
        [WORKED],
    )
    assert rows == [
        ("agent-b", True, False, 10, 9, 4, None, None),  # no persona field: the folder
        ("p-20s", True, True, 12, 11, 5, 0.9, "very_similar"),  # personaId
        ("p-30s", True, False, 8, 7, 3, None, None),  # persona
        ("p-40s", False, True, 0, 0, 0, 0.0, "large_gap"),  # expected only
    ]
    assert built.query(
        "select persona, metric, expected_value, actual_value, similarity"
        " from marts.engagement_persona_metrics where set_id = ? order by persona",
        [WORKED],
    ) == [("p-20s", "likeCount", 10, 11, 0.9), ("p-40s", "likeCount", 5, 0, 0)]
    r = run(built, WORKED)
    assert (r["n_personas"], r["n_expected_personas_missing"]) == (3, 1)


def test_non_act_and_non_ok_lines_are_listed_but_not_counted(built):
    rows = built.query(
        "select action_type, action_status, line_outcome, is_counted, is_liked"
        " from marts.engagement_actions where set_id = ? and not is_counted order by source_file, line_number",
        [WORKED],
    )
    assert rows == [
        ("view", "ok", "not_act", False, False),  # its liked = true is ignored
        ("scroll", "ok", "not_act", False, False),
        ("act", "error", "not_ok", False, False),  # liked + commented ignored
        (None, None, "not_act", False, False),  # session_start, no action
    ]


def test_rejected_lines_and_file_are_recorded_with_reasons(built):
    assert built.query(
        "select source_file, line_number, reason, reason_detail from ops.rejected_rows"
        " where kind = 'engagement_actions' order by 1, 2"
    ) == [
        (f"{WORKED}/agent-a/actions.jsonl", 7, "invalid_json", "invalid_json: Expecting value at column 65"),
        (
            f"{WORKED}/agent-b/actions.jsonl",
            12,
            "invalid_result",
            "invalid_result: result.liked is not true/false (yes)",
        ),
    ]
    assert built.query("select source_file, reject_reason from ops.rejected_files") == [
        (
            f"{D1}/run-bad-expected/expected.json",
            "no metric in 'expected': give at least one of likeCount, commentCount, likeRate, commentRate"
            " (expected-schema.json)",
        ),
    ]
    r = run(built, f"{D1}/run-bad-expected")
    assert (r["evaluation_state"], r["total_acts"], r["overall_similarity"]) == ("no_expected", 3, None)
    assert built.query(
        "select count(*) from marts.engagement_run_metrics where set_id = ?", [f"{D1}/run-bad-expected"]
    ) == [(0,)]


def test_every_engagement_file_reconciles(built):
    rows = built.dicts("select * from ops.file_reconciliation where kind like 'engagement%' order by source_file")
    assert len(rows) == 12  # 13 files, one rejected
    for r in rows:
        assert r["n_data_records"] == r["n_raw_rows"] == r["n_valid_rows"] + r["n_rejected_rows"]
        assert r["n_scored_rows"] == r["n_valid_rows"], r["source_file"]
    by_file = {r["source_file"]: r for r in rows}
    assert by_file[f"{WORKED}/agent-a/actions.jsonl"]["n_rejected_rows"] == 1
    assert by_file[f"{WORKED}/expected.json"]["n_scored_rows"] == 1


def test_same_run_id_another_night_and_identical_expected_bytes(built):
    # identical expected.json bytes in two runs: both loaded (no 'repeat')
    statuses = built.query(
        "select source_file, status from ops.load_log where file_name = 'expected.json'"
        " and source_file like '%/run-worked/%' order by 1"
    )
    assert statuses == [
        (f"{WORKED}/expected.json", "loaded"),
        ("2026-11-02/engagement/run-worked/expected.json", "loaded"),
    ]
    night2 = run(built, "2026-11-02/engagement/run-worked")
    assert (night2["run_id"], str(night2["drop_date"])) == ("run-worked", "2026-11-02")
    assert metrics(built, "2026-11-02/engagement/run-worked") == {
        "likeCount": (30, 5, 25, 0.833333, 0.166667, 0.5),
        "commentCount": (10, 1, 9, 0.9, 0.1, 0.5),
    }
    assert (night2["overall_similarity"], night2["interpretation_band"]) == (0.133333, "large_gap")


def test_marts_use_bi_safe_types(built):
    types = built.query(
        "select table_name, column_name, data_type from information_schema.columns"
        " where table_schema = 'marts' and table_name like 'engagement%'"
    )
    assert len({t for t, _, _ in types}) == 5
    allowed = {"VARCHAR", "BIGINT", "INTEGER", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP"}
    assert [(t, c, d) for t, c, d in types if d not in allowed] == []


def test_report_per_run(built):
    report = built.paths.reports_dir / "engagement" / "2026-11-01" / "run-worked.md"
    text = report.read_text(encoding="utf-8")
    assert "| likeCount | 30 | 27 | 3 | 0.1000 | 0.9000 | 0.50 |" in text
    assert "**overallSimilarity: 0.8500** → 근접하지만 편차 존재 (`close`)" in text
    assert "| p-40s | X | O | 0 | 0 | 0 |" in text
    assert "invalid_result: result.liked is not true/false (yes)" in text
    assert len(list((built.paths.reports_dir / "engagement").rglob("*.md"))) == 6
