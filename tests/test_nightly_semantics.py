"""SPEC §2.2 nightly semantics, each as a test on real dbt builds (without
dbt's data tests, which the other files' builds run: loading is checked here).

tests/fixtures/night2/2026-11-02/resume_agent_basic.csv, by hand:
  1/1: QA t1 ok 3s -> 5 | QB t3 partial ('선택') 25s multi -> 4
  2/1: QA t1 ok 9s -> 3 | QB t3 error (오류), no Raw JSON -> latency 0
  intent: 1/1 (5+4)/2 = 4.5, 2/1 (5+0)/2 = 2.5, set 3.5
"""

from __future__ import annotations

import shutil

import duckdb
import pytest

from agent_eval.cli import EXIT_OK, EXIT_REJECTED
from conftest import FIXTURES

BASIC = "2026-11-01/resume_agent_basic.csv"
NIGHT2 = "2026-11-02/resume_agent_basic.csv"
PUBLIC_TABLES = [
    "marts.resume_item_scores",
    "marts.resume_round_scores",
    "marts.resume_round_track_scores",
    "marts.resume_set_scores",
    "marts.resume_set_track_scores",
    "marts.resume_consistency_pairs",
    "marts.resume_consistency_round_pairs",
    "marts.resume_latency_distribution",
    "marts.history_set_metrics",
    "marts.history_metric_trends",
    "marts.history_metric_diffs",
    "marts.history_query_repeats",
    "marts.history_query_pass_at_k",
    "marts.history_flips",
    "marts.history_flip_tests",
    "marts.history_latency_percentiles",
    "marts.history_gate_results",
    "ops.load_log",
    "ops.rejected_files",
    "ops.rejected_rows",
    "ops.file_reconciliation",
]


def snapshot(wh) -> dict[str, list[tuple]]:
    return {t: wh.query(f"select * from {t} order by all") for t in PUBLIC_TABLES}


def test_rerun_without_new_files_changes_nothing(warehouse):
    warehouse.add_fixture("night2")
    assert warehouse.build(data_tests=False) == EXIT_OK
    before = snapshot(warehouse)
    raw_before = warehouse.query("select count(*) from raw.raw_resume_agent_rows")
    assert warehouse.build(data_tests=False) == EXIT_OK
    assert snapshot(warehouse) == before
    assert warehouse.query("select count(*) from raw.raw_resume_agent_rows") == raw_before
    assert warehouse.query("select count(*) from raw.raw_drop_files") == [(1,)]


def test_night2_scores(warehouse):
    warehouse.add_fixture("night2")
    assert warehouse.build(data_tests=False) == EXIT_OK
    (row,) = warehouse.query(
        "select intent_score, stability_score, latency_score, consistency_score"
        " from marts.resume_set_scores where set_id = ?",
        [NIGHT2],
    )
    # stability 1/1 (5+5)/2, 2/1 (5+0)/2 -> 3.75; latency 1/1 (5+4)/2, 2/1 (3+0)/2 -> 3.0
    # consistency: QA pass/pass, QB partial/error -> 5 x 1/2
    assert row == pytest.approx((3.5, 3.75, 3.0, 2.5))


def test_new_drop_adds_sets_without_recomputing_old_ones(warehouse):
    warehouse.add_fixture("basic")
    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    # Mark the built rows: a recomputation would overwrite the marker.
    with duckdb.connect(str(warehouse.paths.db_path)) as con:
        con.execute("update marts.resume_item_scores set category = 'MARKER' where set_id = ?", [BASIC])
        con.execute("update marts.resume_set_scores set rounds = 'MARKER' where set_id = ?", [BASIC])
    warehouse.add_fixture("night2")
    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    sets = warehouse.query("select set_id, rounds from marts.resume_set_scores order by set_id")
    assert sets == [(BASIC, "MARKER"), (NIGHT2, "1/1,2/1")]
    assert warehouse.query(
        "select distinct category from marts.resume_item_scores where set_id = ?", [BASIC]
    ) == [("MARKER",)]


def test_identical_bytes_at_another_path_count_once(warehouse):
    warehouse.add_fixture("night2")
    assert warehouse.build(data_tests=False) == EXIT_OK
    copy = warehouse.drops / "2026-11-03" / "resume_agent_again.csv"
    copy.parent.mkdir()
    shutil.copy(warehouse.drops / NIGHT2, copy)
    assert warehouse.build(data_tests=False) == EXIT_OK
    assert warehouse.query(
        "select source_file, status, duplicate_of from ops.load_log order by observation_seq"
    ) == [(NIGHT2, "loaded", None), ("2026-11-03/resume_agent_again.csv", "repeat", NIGHT2)]
    assert warehouse.query("select count(*) from marts.resume_set_scores") == [(1,)]
    assert warehouse.query("select count(*) from raw.raw_resume_agent_rows") == [(4,)]


def test_changed_file_replaces_its_set_and_keeps_the_old_version(warehouse):
    warehouse.add_fixture("night2")
    assert warehouse.build(data_tests=False) == EXIT_OK
    path = warehouse.drops / NIGHT2
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    # New version: QB's 2/1 run no longer errors, and QA's 2/1 run is gone.
    fixed = lines[:3] + [lines[4].replace(",timeout,", ",,").replace(
        ",,,,\n", ',,,,"{""assistantMessage"": ""분석 완료"", ""responseTimeSec"": 30}"\n')]
    path.write_text("".join(fixed), encoding="utf-8")
    assert warehouse.build(data_tests=False) == EXIT_OK
    items = warehouse.query(
        "select query_id, round, status from marts.resume_item_scores where set_id = ? order by all",
        [NIGHT2],
    )
    assert items == [("QA", "1/1", "ok"), ("QB", "1/1", "partial"), ("QB", "2/1", "ok")]
    log = warehouse.query(
        "select status, is_current, is_superseded from ops.load_log order by observation_seq"
    )
    assert log == [("loaded", False, True), ("loaded", True, False)]
    # raw history keeps both versions: 4 + 3 rows
    assert warehouse.query(
        "select count(distinct sha256), count(*) from raw.raw_resume_agent_rows"
    ) == [(2, 7)]
    # the replaced set's pairs: QB partial/ok, both pass (QA no longer in 2/1)
    assert warehouse.query(
        "select query_id, outcome from marts.resume_consistency_pairs where set_id = ?", [NIGHT2]
    ) == [("QB", "both_pass")]
    # A rebuild from scratch agrees with the incremental path.
    before = snapshot(warehouse)
    assert warehouse.build(full_refresh=True, data_tests=False) == EXIT_OK
    assert snapshot(warehouse) == before


def test_restored_bytes_become_current_again(warehouse):
    warehouse.add_fixture("night2")
    path = warehouse.drops / NIGHT2
    original = path.read_bytes()
    assert warehouse.build(data_tests=False) == EXIT_OK
    path.write_bytes(original.replace("필터를 적용했습니다.".encode(), "".encode(), 1))
    assert warehouse.build(data_tests=False) == EXIT_OK
    assert warehouse.query(
        "select status from marts.resume_item_scores where set_id = ? and line_number = 2", [NIGHT2]
    ) == [("empty",)]
    path.write_bytes(original)
    assert warehouse.build(data_tests=False) == EXIT_OK
    assert warehouse.query(
        "select status, is_current from ops.load_log order by observation_seq"
    ) == [("loaded", False), ("loaded", False), ("restored", True)]
    assert warehouse.query(
        "select status from marts.resume_item_scores where set_id = ? and line_number = 2", [NIGHT2]
    ) == [("ok",)]


def test_full_refresh_gives_identical_marts(warehouse):
    warehouse.add_fixture("basic")
    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    warehouse.add_fixture("night2")
    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    incremental = snapshot(warehouse)
    assert warehouse.build(full_refresh=True, data_tests=False) == EXIT_REJECTED
    assert snapshot(warehouse) == incremental


def test_bad_files_do_not_stop_good_ones(warehouse, capsys):
    warehouse.add_fixture("night2")
    night = warehouse.drops / "2026-11-02"
    header = (night / "resume_agent_basic.csv").read_text(encoding="utf-8").splitlines()[0]
    (night / "resume_agent_no_raw.csv").write_text(
        header.replace(",Raw JSON", "") + "\nr,i,q,1,a,b,c,1/1,d,,,,\n", encoding="utf-8"
    )
    (night / "resume_agent_binary.csv").write_bytes(b"\xff\xfe\x00garbage\x81\x82" * 3)
    (night / "resume_agent_latin1.csv").write_bytes(b"Run ID,caf\xe9\xff\n")
    (night / "resume_agent_empty.csv").write_bytes(b"")
    bad_folder = warehouse.drops / "nightly" / "resume_agent_x.csv"
    bad_folder.parent.mkdir()
    shutil.copy(night / "resume_agent_basic.csv", bad_folder)
    (night / "notes.txt").write_text("not a drop", encoding="utf-8")

    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    err = capsys.readouterr().err
    rejected = dict(warehouse.query("select source_file, reject_reason from ops.rejected_files"))
    assert rejected["2026-11-02/resume_agent_no_raw.csv"].startswith(
        "missing required column(s): Raw JSON"
    )
    assert rejected["2026-11-02/resume_agent_latin1.csv"].startswith("undecodable")
    assert rejected["2026-11-02/resume_agent_empty.csv"] == "empty file"
    assert rejected["nightly/resume_agent_x.csv"].startswith("drop folder 'nightly' is not a date")
    assert "2026-11-02/resume_agent_binary.csv" in rejected
    assert "rejected file 2026-11-02/resume_agent_no_raw.csv: missing required column(s): Raw JSON" in err
    assert warehouse.query(
        "select status from ops.load_log where source_file = '2026-11-02/notes.txt'"
    ) == [("ignored",)]
    # the good file was loaded and scored all the same
    assert warehouse.query("select set_id from marts.resume_set_scores") == [(NIGHT2,)]


def test_encodings_are_detected_and_give_the_same_scores(warehouse):
    text = (FIXTURES / "night2" / NIGHT2).read_text(encoding="utf-8")
    night = warehouse.drops / "2026-11-02"
    night.mkdir()
    (night / "resume_agent_utf8.csv").write_bytes(text.encode("utf-8"))
    (night / "resume_agent_bom.csv").write_bytes(text.encode("utf-8-sig"))
    (night / "resume_agent_cp949.csv").write_bytes(text.encode("cp949"))
    (night / "resume_agent_euckr.csv").write_bytes(text.replace("여성", "여자").encode("euc-kr"))
    assert warehouse.build(data_tests=False) == EXIT_OK
    assert dict(warehouse.query("select file_name, encoding from ops.load_log")) == {
        "resume_agent_utf8.csv": "utf-8",
        "resume_agent_bom.csv": "utf-8-sig",
        "resume_agent_cp949.csv": "cp949",
        "resume_agent_euckr.csv": "cp949",
    }
    scores = warehouse.query(
        "select intent_score, stability_score, latency_score, consistency_score"
        " from marts.resume_set_scores order by set_id"
    )
    assert len(scores) == 4 and len(set(scores)) == 1
    texts = warehouse.query("select distinct query_text from marts.resume_item_scores order by 1")
    assert texts == [("분석해줘",), ("여성 지원자만 보여줘",), ("여자 지원자만 보여줘",)]


def test_reconciliation_test_fails_when_rows_go_missing(warehouse):
    warehouse.add_fixture("night2")
    assert warehouse.build(data_tests=False) == EXIT_OK
    with duckdb.connect(str(warehouse.paths.db_path)) as con:
        con.execute("delete from marts.resume_item_scores where line_number = 2")
    from agent_eval import runner

    # the rows were deleted behind dbt's back, which node reuse cannot see
    # (docs/decisions.md): execute the selection, as after such a repair
    with pytest.raises(runner.DbtFailed):
        runner.run_dbt(
            warehouse.paths,
            ["build", "--select", "file_reconciliation+", "--project-dir", str(warehouse.paths.project_dir),
             "--vars", "{reuse: false}"],
            quiet=True,
        )
