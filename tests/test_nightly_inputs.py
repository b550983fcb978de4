"""SPEC §2.2 nightly semantics, continued (test_nightly_semantics.py has the
rest; the two files are split so the test workers share them): a changed
file, restored bytes, the same bytes at another path, bad files and
encodings.

tests/fixtures/night2 is worked by hand in test_nightly_semantics.py.

Two module scenarios, each a sequence of nights run once and read by
several tests (docs/testing.md, "One sequence of nights, several tests"):
`replaced_and_restored` changes and restores two files of fixtures basic +
night2 on the same nights, each test reading its own file's rows;
`bad_and_encoded` is one first night of bad files beside the same file in
four encodings.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import shutil
from types import SimpleNamespace

import pytest
from test_nightly_semantics import BASIC, NIGHT2, snapshot

from agent_eval import withdraw
from agent_eval.cli import EXIT_OK, EXIT_REJECTED
from conftest import FIXTURES, Snapshot, Warehouse

AGAIN = "2026-11-03/resume_agent_again.csv"
ISSUES = (
    "select issue, subject, reason_code, sha256, drop_date::varchar, n_records, n_rejected_rows, "
    "first_line_number from ops.delivery_issues order by all"
)


@pytest.fixture(scope="module")
def replaced_and_restored(module_built, tmp_path_factory) -> SimpleNamespace:
    """Fixtures basic + night2 built (night 1); night 2 replaces both files
    (basic: the same bytes less its ragged line 18; night2: QB's 2/1 run no
    longer errors and QA's 2/1 run is gone), and a copy of that warehouse
    is rebuilt from scratch; night 3 restores both files' night-1 bytes
    (with the data tests); night 4 has nothing new to load (the night2
    file's bytes at another path: a repeat); night 5 withdraws the basic
    file. What each night left is kept for the tests."""
    warehouse, code = module_built("basic", "night2")
    out = SimpleNamespace(codes=[code])
    basic, night2 = warehouse.drops / BASIC, warehouse.drops / NIGHT2
    out.basic_original, night2_original = basic.read_bytes(), night2.read_bytes()
    out.basic_changed = out.basic_original.removesuffix(b"Q9,ragged,row\n")
    lines = night2_original.decode("utf-8").splitlines(keepends=True)
    fixed = lines[:3] + [
        lines[4]
        .replace(",timeout,", ",,")
        .replace(",,,,\n", ',,,,"{""assistantMessage"": ""분석 완료"", ""responseTimeSec"": 30}"\n')
    ]
    basic.write_bytes(out.basic_changed)
    night2.write_text("".join(fixed), encoding="utf-8")

    # night 2: both files replaced
    out.codes.append(warehouse.build(data_tests=False))
    out.replaced_items = items(warehouse)
    out.replaced_log = warehouse.query(
        "select status, is_current, is_superseded from ops.load_log where source_file = ? order by observation_seq",
        [NIGHT2],
    )
    out.replaced_raw = warehouse.query(
        "select count(distinct sha256), count(*) from raw.raw_resume_agent_rows where source_file = ?", [NIGHT2]
    )
    out.replaced_pairs = warehouse.query(
        "select query_id, outcome from marts.resume_consistency_pairs where set_id = ?", [NIGHT2]
    )
    out.incremental = snapshot(warehouse)
    # a rebuild from scratch, on a copy: the nights go on from the incremental path
    refreshed = Warehouse.copy_of(Snapshot(warehouse.root), tmp_path_factory.mktemp("refreshed"))
    out.refresh_code = refreshed.build(full_refresh=True, data_tests=False)
    out.full_refresh = snapshot(refreshed)

    # night 3: both files' night-1 bytes again, with the data tests: every
    # file version reconciles
    basic.write_bytes(out.basic_original)
    night2.write_bytes(night2_original)
    out.codes.append(warehouse.build())
    out.restored_items = items(warehouse)
    out.log = {
        source: warehouse.query(
            "select status, sha256, is_current from ops.load_log where source_file = ? order by observation_seq",
            [source],
        )
        for source in (BASIC, NIGHT2)
    }
    out.rejected_files = warehouse.query("select count(*) from ops.rejected_files")
    out.rejected_rows = warehouse.query(
        "select sha256, line_number, reason, is_current from ops.rejected_rows order by is_current, line_number"
    )
    out.reconciliation = warehouse.query(
        "select sha256, n_data_records, n_raw_rows, n_valid_rows, n_rejected_rows, is_current, n_scored_rows "
        "from ops.file_reconciliation where source_file = ? order by n_data_records",
        [BASIC],
    )
    out.basic_items = warehouse.query("select count(*) from marts.resume_item_scores where set_id = ?", [BASIC])
    out.issues = [warehouse.query(ISSUES)]

    # night 4: nothing new to load: the night2 file's bytes again, at another path
    out.sets_and_rows = [sets_and_rows(warehouse)]
    (warehouse.drops / AGAIN).parent.mkdir()
    shutil.copy(night2, warehouse.drops / AGAIN)
    out.codes.append(warehouse.build(data_tests=False))
    out.issues.append(warehouse.query(ISSUES))
    out.sets_and_rows.append(sets_and_rows(warehouse))
    out.again = warehouse.query(
        "select status, duplicate_of, is_current from ops.load_log where source_file = ? order by observation_seq",
        [AGAIN],
    )

    # night 5: the basic file withdrawn
    withdraw.record(warehouse.paths.db_path, BASIC, reason="a rehearsal", user="owner-test")
    out.codes.append(warehouse.build(data_tests=False))
    out.issues.append(warehouse.query(ISSUES))
    return out


def sets_and_rows(warehouse) -> tuple[list[tuple], list[tuple]]:
    """The resume sets, and the raw rows per file."""
    return (
        warehouse.query("select set_id from marts.resume_set_scores order by 1"),
        warehouse.query("select source_file, count(*) from raw.raw_resume_agent_rows group by 1 order by 1"),
    )


def items(warehouse) -> list[tuple]:
    return warehouse.query(
        "select query_id, round, status from marts.resume_item_scores where set_id = ? order by all", [NIGHT2]
    )


def test_changed_file_replaces_its_set_and_keeps_the_old_version(replaced_and_restored):
    nights = replaced_and_restored
    assert nights.codes[:2] == [EXIT_REJECTED, EXIT_REJECTED]  # basic's rejected rows
    # New version: QB's 2/1 run no longer errors, and QA's 2/1 run is gone.
    assert nights.replaced_items == [("QA", "1/1", "ok"), ("QB", "1/1", "partial"), ("QB", "2/1", "ok")]
    assert nights.replaced_log == [("loaded", False, True), ("loaded", True, False)]
    # raw history keeps both versions: 4 + 3 rows
    assert nights.replaced_raw == [(2, 7)]
    # the replaced set's pairs: QB partial/ok, both pass (QA no longer in 2/1)
    assert nights.replaced_pairs == [("QB", "both_pass")]
    # A rebuild from scratch agrees with the incremental path.
    assert nights.refresh_code == EXIT_REJECTED
    assert nights.full_refresh == nights.incremental


def test_restored_bytes_become_current_again(replaced_and_restored):
    nights = replaced_and_restored
    assert nights.codes[2] == EXIT_REJECTED  # basic's rejected rows
    assert [(status, current) for status, _, current in nights.log[NIGHT2]] == [
        ("loaded", False),
        ("loaded", False),
        ("restored", True),
    ]
    first, second, restored = (sha for _, sha, _ in nights.log[NIGHT2])
    assert restored == first != second
    # night 1's set again: QA's 2/1 run is back and QB's errors again
    assert nights.restored_items == [
        ("QA", "1/1", "ok"),
        ("QA", "2/1", "ok"),
        ("QB", "1/1", "partial"),
        ("QB", "2/1", "error"),
    ]


def test_restored_bytes_with_rejected_rows_keep_the_night_going(replaced_and_restored):
    """Night 1 (fixture basic): 2026-11-01/resume_agent_basic.csv, 16
    records, line 17 rejected (Track 9: invalid_track), line 18 rejected
    (3 fields of 14: ragged_row), 14 scored. Night 2 replaces it with the
    same bytes less line 18: 15 records, line 17 rejected, 14 scored.
    Night 3 restores the night-1 bytes: the night-1 version is current
    again and is reported once, with its own rejected rows; night 4
    (nothing new to load) builds the same; night 5 withdraws the path. (The
    night2 file, replaced and restored on the same nights, has no
    rejected rows and no delivery issue.)"""
    nights = replaced_and_restored
    assert nights.codes[0] == EXIT_REJECTED
    assert nights.basic_original.endswith(b"\nQ9,ragged,row\n")
    first = hashlib.sha256(nights.basic_original).hexdigest()
    second = hashlib.sha256(nights.basic_changed).hexdigest()
    assert nights.codes[1:3] == [EXIT_REJECTED, EXIT_REJECTED]
    assert nights.log[BASIC] == [("loaded", first, False), ("loaded", second, False), ("restored", first, True)]
    assert nights.rejected_files == [(0,)]
    # each version's rejected rows once; the current ones are night 1's
    assert nights.rejected_rows == [
        (second, 17, "invalid_track", False),
        (first, 17, "invalid_track", True),
        (first, 18, "ragged_row", True),
    ]
    # one row per loaded version: records = raw = valid + rejected, and the
    # current version's valid rows are scored
    assert nights.reconciliation == [(second, 15, 15, 14, 1, False, None), (first, 16, 16, 14, 2, True, 14)]
    expected = [
        ("rejected_rows", BASIC, "invalid_track", first, "2026-11-01", 16, 1, 17),
        ("rejected_rows", BASIC, "ragged_row", first, "2026-11-01", 16, 1, 18),
    ]
    assert nights.issues[0] == expected
    assert nights.basic_items == [(14,)]
    # a later night
    assert nights.codes[3] == EXIT_REJECTED
    assert nights.issues[1] == expected
    # withdrawn: the path's latest version (the restored bytes) and its 16
    # records, counted when those bytes were loaded
    assert nights.codes[4] == EXIT_OK
    assert nights.issues[2] == [("withdrawn", BASIC, "withdrawn", first, "2026-11-01", 16, None, None)]


def test_identical_bytes_at_another_path_count_once(replaced_and_restored):
    """Night 4 drops the night2 file's current bytes (night 1's, restored
    on night 3) at another path: a repeat of the night2 file, with no set
    and no raw rows of its own."""
    nights = replaced_and_restored
    assert nights.codes[3] == EXIT_REJECTED  # basic's rejected rows
    assert nights.again == [("repeat", NIGHT2, False)]
    before, after = nights.sets_and_rows
    assert after == before
    assert after == ([(BASIC,), (NIGHT2,)], [(BASIC, 16 + 15), (NIGHT2, 4 + 3)])


ENCODED = {  # file name: encoding the loader should detect
    "resume_agent_utf8.csv": "utf-8",
    "resume_agent_bom.csv": "utf-8-sig",
    "resume_agent_cp949.csv": "cp949",
    "resume_agent_euckr.csv": "cp949",
}


@pytest.fixture(scope="module")
def bad_and_encoded(module_warehouse) -> SimpleNamespace:
    """One first night: the night2 file in four encodings (the good files)
    beside bad files of every kind, in one build."""
    warehouse = module_warehouse("bad_and_encoded")
    text = (FIXTURES / "night2" / NIGHT2).read_text(encoding="utf-8")
    night = warehouse.drops / "2026-11-02"
    night.mkdir()
    (night / "resume_agent_utf8.csv").write_bytes(text.encode("utf-8"))
    (night / "resume_agent_bom.csv").write_bytes(text.encode("utf-8-sig"))
    (night / "resume_agent_cp949.csv").write_bytes(text.encode("cp949"))
    (night / "resume_agent_euckr.csv").write_bytes(text.replace("여성", "여자").encode("euc-kr"))
    header = text.splitlines()[0]
    (night / "resume_agent_no_raw.csv").write_text(
        header.replace(",Raw JSON", "") + "\nr,i,q,1,a,b,c,1/1,d,,,,\n", encoding="utf-8"
    )
    (night / "resume_agent_binary.csv").write_bytes(b"\xff\xfe\x00garbage\x81\x82" * 3)
    (night / "resume_agent_latin1.csv").write_bytes(b"Run ID,caf\xe9\xff\n")
    (night / "resume_agent_empty.csv").write_bytes(b"")
    bad_folder = warehouse.drops / "nightly" / "resume_agent_x.csv"
    bad_folder.parent.mkdir()
    shutil.copy(FIXTURES / "night2" / NIGHT2, bad_folder)
    (night / "notes.txt").write_text("not a drop", encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = warehouse.build(data_tests=False)
    return SimpleNamespace(warehouse=warehouse, code=code, err=err.getvalue())


def test_bad_files_do_not_stop_good_ones(bad_and_encoded):
    warehouse = bad_and_encoded.warehouse
    assert bad_and_encoded.code == EXIT_REJECTED
    rejected = dict(warehouse.query("select source_file, reject_reason from ops.rejected_files"))
    assert rejected["2026-11-02/resume_agent_no_raw.csv"].startswith("missing required column(s): Raw JSON")
    assert rejected["2026-11-02/resume_agent_latin1.csv"].startswith("undecodable")
    assert rejected["2026-11-02/resume_agent_empty.csv"] == "empty file"
    assert rejected["nightly/resume_agent_x.csv"].startswith("drop folder 'nightly' is not a date")
    assert "2026-11-02/resume_agent_binary.csv" in rejected
    assert len(rejected) == 5
    assert (
        "rejected file 2026-11-02/resume_agent_no_raw.csv: missing required column(s): Raw JSON" in bad_and_encoded.err
    )
    assert warehouse.query("select status from ops.load_log where source_file = '2026-11-02/notes.txt'") == [
        ("ignored",)
    ]
    # the good files were loaded and scored all the same
    assert warehouse.query("select set_id from marts.resume_set_scores order by 1") == [
        (f"2026-11-02/{name}",) for name in sorted(ENCODED)
    ]


def test_encodings_are_detected_and_give_the_same_scores(bad_and_encoded):
    warehouse = bad_and_encoded.warehouse
    # none of the four is rejected, as a file or a row (the night's exit
    # code is the bad files')
    rejected = warehouse.query("select source_file from ops.rejected_files")
    assert not {f"2026-11-02/{name}" for name in ENCODED} & {source for (source,) in rejected}
    assert warehouse.query("select count(*) from ops.rejected_rows") == [(0,)]
    loaded = warehouse.query(
        "select file_name, status, encoding from ops.load_log where file_name in (?, ?, ?, ?) order by all",
        list(ENCODED),
    )
    assert loaded == sorted((name, "loaded", encoding) for name, encoding in ENCODED.items())
    scores = warehouse.query(
        "select intent_score, stability_score, latency_score, consistency_score"
        " from marts.resume_set_scores order by set_id"
    )
    assert len(scores) == 4 and len(set(scores)) == 1
    texts = warehouse.query("select distinct query_text from marts.resume_item_scores order by 1")
    assert texts == [("분석해줘",), ("여성 지원자만 보여줘",), ("여자 지원자만 보여줘",)]
