"""SPEC §2.2 nightly semantics, continued (test_nightly_semantics.py has the
rest; the two files are split so the test workers share them): a changed
file, restored bytes, bad files and encodings.

tests/fixtures/night2 is worked by hand in test_nightly_semantics.py.
"""

from __future__ import annotations

import hashlib
import shutil

from test_nightly_semantics import NIGHT2, snapshot

from agent_eval import withdraw
from agent_eval.cli import EXIT_OK, EXIT_REJECTED
from conftest import FIXTURES


def test_changed_file_replaces_its_set_and_keeps_the_old_version(built):
    warehouse, code = built("night2")
    assert code == EXIT_OK
    path = warehouse.drops / NIGHT2
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    # New version: QB's 2/1 run no longer errors, and QA's 2/1 run is gone.
    fixed = lines[:3] + [
        lines[4]
        .replace(",timeout,", ",,")
        .replace(",,,,\n", ',,,,"{""assistantMessage"": ""분석 완료"", ""responseTimeSec"": 30}"\n')
    ]
    path.write_text("".join(fixed), encoding="utf-8")
    assert warehouse.build(data_tests=False) == EXIT_OK
    items = warehouse.query(
        "select query_id, round, status from marts.resume_item_scores where set_id = ? order by all",
        [NIGHT2],
    )
    assert items == [("QA", "1/1", "ok"), ("QB", "1/1", "partial"), ("QB", "2/1", "ok")]
    log = warehouse.query("select status, is_current, is_superseded from ops.load_log order by observation_seq")
    assert log == [("loaded", False, True), ("loaded", True, False)]
    # raw history keeps both versions: 4 + 3 rows
    assert warehouse.query("select count(distinct sha256), count(*) from raw.raw_resume_agent_rows") == [(2, 7)]
    # the replaced set's pairs: QB partial/ok, both pass (QA no longer in 2/1)
    assert warehouse.query(
        "select query_id, outcome from marts.resume_consistency_pairs where set_id = ?", [NIGHT2]
    ) == [("QB", "both_pass")]
    # A rebuild from scratch agrees with the incremental path.
    before = snapshot(warehouse)
    assert warehouse.build(full_refresh=True, data_tests=False) == EXIT_OK
    assert snapshot(warehouse) == before


def test_restored_bytes_become_current_again(built):
    warehouse, code = built("night2")
    assert code == EXIT_OK
    path = warehouse.drops / NIGHT2
    original = path.read_bytes()
    path.write_bytes(original.replace("필터를 적용했습니다.".encode(), b"", 1))
    assert warehouse.build(data_tests=False) == EXIT_OK
    assert warehouse.query(
        "select status from marts.resume_item_scores where set_id = ? and line_number = 2", [NIGHT2]
    ) == [("empty",)]
    path.write_bytes(original)
    assert warehouse.build(data_tests=False) == EXIT_OK
    assert warehouse.query("select status, is_current from ops.load_log order by observation_seq") == [
        ("loaded", False),
        ("loaded", False),
        ("restored", True),
    ]
    assert warehouse.query(
        "select status from marts.resume_item_scores where set_id = ? and line_number = 2", [NIGHT2]
    ) == [("ok",)]


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
    assert rejected["2026-11-02/resume_agent_no_raw.csv"].startswith("missing required column(s): Raw JSON")
    assert rejected["2026-11-02/resume_agent_latin1.csv"].startswith("undecodable")
    assert rejected["2026-11-02/resume_agent_empty.csv"] == "empty file"
    assert rejected["nightly/resume_agent_x.csv"].startswith("drop folder 'nightly' is not a date")
    assert "2026-11-02/resume_agent_binary.csv" in rejected
    assert "rejected file 2026-11-02/resume_agent_no_raw.csv: missing required column(s): Raw JSON" in err
    assert warehouse.query("select status from ops.load_log where source_file = '2026-11-02/notes.txt'") == [
        ("ignored",)
    ]
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


def test_restored_bytes_with_rejected_rows_keep_the_night_going(built):
    """Night 1 (fixture basic): 2026-11-01/resume_agent_basic.csv, 16
    records, line 17 rejected (Track 9: invalid_track), line 18 rejected
    (3 fields of 14: ragged_row), 14 scored. Night 2 replaces it with the
    same bytes less line 18: 15 records, line 17 rejected, 14 scored.
    Night 3 restores the night-1 bytes: the night-1 version is current
    again and is reported once, with its own rejected rows; night 4
    (nothing new) builds the same; night 5 withdraws the path."""
    warehouse, code = built("basic")
    assert code == EXIT_REJECTED
    path = warehouse.drops / "2026-11-01" / "resume_agent_basic.csv"
    original = path.read_bytes()
    assert original.endswith(b"\nQ9,ragged,row\n")
    changed = original.removesuffix(b"Q9,ragged,row\n")
    first, second = hashlib.sha256(original).hexdigest(), hashlib.sha256(changed).hexdigest()
    path.write_bytes(changed)
    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    path.write_bytes(original)
    # with the data tests: every file version reconciles
    assert warehouse.build() == EXIT_REJECTED
    source = "2026-11-01/resume_agent_basic.csv"
    assert warehouse.query("select status, sha256, is_current from ops.load_log order by observation_seq") == [
        ("loaded", first, False),
        ("loaded", second, False),
        ("restored", first, True),
    ]
    assert warehouse.query("select count(*) from ops.rejected_files") == [(0,)]
    # each version's rejected rows once; the current ones are night 1's
    assert warehouse.query(
        "select sha256, line_number, reason, is_current from ops.rejected_rows order by is_current, line_number"
    ) == [(second, 17, "invalid_track", False), (first, 17, "invalid_track", True), (first, 18, "ragged_row", True)]
    # one row per loaded version: records = raw = valid + rejected, and the
    # current version's valid rows are scored
    assert warehouse.query(
        "select sha256, n_data_records, n_raw_rows, n_valid_rows, n_rejected_rows, is_current, n_scored_rows "
        "from ops.file_reconciliation order by n_data_records"
    ) == [(second, 15, 15, 14, 1, False, None), (first, 16, 16, 14, 2, True, 14)]
    issues = (
        "select issue, subject, reason_code, sha256, drop_date::varchar, n_records, n_rejected_rows, "
        "first_line_number from ops.delivery_issues order by all"
    )
    expected = [
        ("rejected_rows", source, "invalid_track", first, "2026-11-01", 16, 1, 17),
        ("rejected_rows", source, "ragged_row", first, "2026-11-01", 16, 1, 18),
    ]
    assert warehouse.query(issues) == expected
    assert warehouse.query("select count(*) from marts.resume_item_scores where set_id = ?", [source]) == [(14,)]
    # a later night
    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    assert warehouse.query(issues) == expected
    # withdrawn: the path's latest version (the restored bytes) and its 16
    # records, counted when those bytes were loaded
    withdraw.record(warehouse.paths.db_path, source, reason="a rehearsal", user="owner-test")
    assert warehouse.build(data_tests=False) == EXIT_OK
    assert warehouse.query(issues) == [("withdrawn", source, "withdrawn", first, "2026-11-01", 16, None, None)]
