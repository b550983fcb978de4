"""SPEC §2.2 nightly semantics, continued (test_nightly_semantics.py has the
rest; the two files are split so the test workers share them): a changed
file, restored bytes, bad files and encodings.

tests/fixtures/night2 is worked by hand in test_nightly_semantics.py.
"""

from __future__ import annotations

import shutil

from test_nightly_semantics import NIGHT2, snapshot

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
