"""The loader on its own: encodings, CSV records and line numbers, the manifest."""

from __future__ import annotations

import json
import os
import shutil
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import mutations
import pytest

from agent_eval import ingest
from agent_eval.agents import resume_agent
from agent_eval.ingest import Observation, RejectedFile, kind_named
from conftest import SAMPLE_DROPS, observe_and_load

RESUME = kind_named("resume_agent")
HEADER = ",".join(resume_agent.COLUMNS)


def row(*values: str) -> str:
    cells = list(values) + [""] * (14 - len(values))
    return ",".join(cells)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("질의".encode(), "utf-8"),
        ("질의".encode("utf-8-sig"), "utf-8-sig"),
        ("질의".encode("cp949"), "cp949"),
        ("질의".encode("euc-kr"), "cp949"),
        ("질의".encode("utf-16"), "utf-16"),
        (b"plain ascii", "utf-8"),
    ],
)
def test_detect_encoding(data, expected):
    assert ingest.detect_encoding(data) == expected


def test_undecodable_bytes_are_rejected_with_the_offset():
    with pytest.raises(RejectedFile, match=r"undecodable.*offset 3"):
        ingest.detect_encoding(b"abc\xff\xfe\xfd")


def test_a_bom_file_that_is_not_utf8_is_rejected_not_a_crash(tmp_path):
    """One rule for every kind: a UTF-8 BOM followed by bytes that are not
    UTF-8 is rejected with the offset, for a JSONL or JSON file (this used
    to raise UnicodeDecodeError and stop the manifest, hence the night) as
    for a CSV file. Offset 12: after the 3 BOM bytes and the 9 bytes of
    the first line ({"a": 1} and its line feed)."""
    bad = b'\xef\xbb\xbf{"a": 1}\n\xff\xfe\n'
    _write(tmp_path, "2026-11-01/recruit_agent_bom.jsonl", bad)
    _write(tmp_path, "2026-11-01/summary_bom.json", bad)
    _write(tmp_path, "2026-11-01/resume_agent_bom.csv", b"\xef\xbb\xbf" + HEADER.encode() + b"\n\xff\xfe\n")
    rows = {r["file_name"]: r for r in ingest.manifest_rows(tmp_path)}
    for name in ("recruit_agent_bom.jsonl", "summary_bom.json"):
        assert (rows[name]["status"], rows[name]["reject_reason"]) == (
            "rejected",
            "undecodable: UTF-8 BOM but not UTF-8 (first bad byte at offset 12)",
        ), name
    csv = rows["resume_agent_bom.csv"]
    offset = 3 + len(HEADER.encode()) + 1
    assert (csv["status"], csv["reject_reason"]) == (
        "rejected",
        f"undecodable: UTF-8 BOM but not UTF-8 (first bad byte at offset {offset})",
    )


def test_csv_records_keep_physical_start_lines_across_multiline_cells():
    text = (
        "\n".join(
            [
                HEADER,
                row("r", "i1", "q1"),
                'r,i2,q2,1,"첫 줄\n둘째 줄\n셋째 줄",' + ",".join([""] * 9),
                "",
                row("r", "i3", "q3"),
            ]
        )
        + "\n"
    )
    records = list(ingest.read_records(text, RESUME))
    assert [(r.line_number, r.values["Item ID"]) for r in records] == [(2, "i1"), (3, "i2"), (7, "i3")]
    assert records[1].values["질의"] == "첫 줄\n둘째 줄\n셋째 줄"


def test_ragged_and_malformed_records_are_kept_with_reason_and_raw_text():
    text = "\n".join([HEADER, "a,b,c", row("r", "i2", "q2"), 'x,"unclosed"y' + ",z" * 12]) + "\n"
    records = list(ingest.read_records(text, RESUME))
    assert [(r.line_number, r.reject_reason) for r in records] == [
        (2, "ragged_row: expected 14 fields, got 3"),
        (3, None),
        (4, "malformed_csv: ',' expected after '\"'"),
    ]
    assert records[0].raw_text == "a,b,c\n"
    assert records[2].raw_text.startswith('x,"unclosed"y')


def test_header_problems_reject_the_file():
    with pytest.raises(RejectedFile, match=r"missing required column\(s\): LLM 점수, Raw JSON"):
        list(ingest.read_records(HEADER.replace(",LLM 점수", "").replace(",Raw JSON", "") + "\n", RESUME))
    with pytest.raises(RejectedFile, match=r"duplicated column\(s\) in header: Track"):
        list(ingest.read_records(HEADER + ",Track\n", RESUME))
    with pytest.raises(RejectedFile, match="empty file"):
        list(ingest.read_records("", RESUME))


def test_extra_columns_and_header_whitespace_are_accepted():
    text = HEADER.replace("Track", " Track ") + ",비고\n" + row("r", "i", "q", "1") + ",메모\n"
    (record,) = ingest.read_records(text, RESUME)
    assert record.values["Track"] == "1"
    assert record.values["비고"] == "메모"


def _write(root: Path, relative: str, data: bytes) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_manifest_statuses_and_no_op_rerun(tmp_path):
    good = (HEADER + "\n" + row("r", "i", "q", "1") + "\n").encode()
    _write(tmp_path, "2026-11-01/resume_agent_a.csv", good)
    _write(tmp_path, "2026-11-01/resume_agent_b.csv", good)  # same bytes
    _write(tmp_path, "2026-11-01/resume_agent_c.csv", b"Run ID\nx\n")
    _write(tmp_path, "2026-11-01/readme.txt", b"hello")
    _write(tmp_path, "latest/resume_agent_d.csv", good + b"\n")
    first = ingest.manifest_rows(tmp_path)
    assert [(r["source_file"], r["status"], r["duplicate_of"], r["n_data_records"]) for r in first] == [
        ("2026-11-01/readme.txt", "ignored", None, None),
        ("2026-11-01/resume_agent_a.csv", "loaded", None, 1),
        ("2026-11-01/resume_agent_b.csv", "repeat", "2026-11-01/resume_agent_a.csv", None),
        ("2026-11-01/resume_agent_c.csv", "rejected", None, None),
        ("latest/resume_agent_d.csv", "rejected", None, None),
    ]
    assert [r["observation_seq"] for r in first] == [1, 2, 3, 4, 5]
    history = [Observation(r["source_file"], r["sha256"], r["status"], r["observation_seq"]) for r in first]
    assert ingest.manifest_rows(tmp_path, history) == []

    _write(tmp_path, "2026-11-01/resume_agent_a.csv", good + (row("r", "i2", "q2", "2") + "\n").encode())
    (changed,) = ingest.manifest_rows(tmp_path, history)
    assert (changed["status"], changed["n_data_records"], changed["observation_seq"]) == ("loaded", 2, 6)
    history.append(Observation(changed["source_file"], changed["sha256"], changed["status"], 6))
    _write(tmp_path, "2026-11-01/resume_agent_a.csv", good)
    (restored,) = ingest.manifest_rows(tmp_path, history)
    assert (restored["status"], restored["duplicate_of"]) == ("restored", "2026-11-01/resume_agent_a.csv")


def test_manifest_requires_the_drops_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ingest.manifest_rows(tmp_path / "missing")


def test_the_loader_gives_one_row_per_record(tmp_path):
    text = HEADER + "\n" + row("r", "i1", "q1", "1") + "\nbad,row\n"
    _write(tmp_path / "drops", "2026-11-01/resume_agent_a.csv", text.encode("cp949"))
    ((obs, rows),) = observe_and_load(tmp_path / "drops", tmp_path / "landing")
    assert (obs["loader"], obs["n_data_records"]) == ("python", 2)
    assert [r["line_number"] for r in rows] == [2, 3]
    assert [r["reject_reason"] for r in rows] == [None, "ragged_row: expected 14 fields, got 2"]
    assert [r["Item ID"] for r in rows] == ["i1", None]


def test_unchanged_files_are_not_read_again(tmp_path, monkeypatch):
    """Same size and modification time as last observed: not hashed again
    (a nightly build does not reread history); any change is seen."""
    good = (HEADER + "\n" + row("r", "i", "q", "1") + "\n").encode()
    _write(tmp_path, "2026-11-01/resume_agent_a.csv", good)
    (first,) = ingest.manifest_rows(tmp_path)
    history = [
        Observation(
            first["source_file"], first["sha256"], first["status"], 1, first["size_bytes"], first["modified_at"]
        )
    ]
    read: list[Path] = []
    real_scan = ingest.csv_load.scan_file
    monkeypatch.setattr(ingest.csv_load, "scan_file", lambda p: read.append(p) or real_scan(p))
    assert ingest.manifest_rows(tmp_path, history) == []
    assert read == []
    path = tmp_path / "2026-11-01" / "resume_agent_a.csv"
    path.write_bytes(good.replace(b"q,1", b"q,2"))  # same size, new time
    (changed,) = ingest.manifest_rows(tmp_path, history)
    assert read == [path] and changed["status"] == "loaded"


def test_manifest_counts_csv_records_and_picks_the_parser(tmp_path):
    multi = HEADER + "\n" + row("r", "i1", "q1", "1") + '\nr,i2,q2,1,"두\n줄"' + "," * 9 + "\n"
    _write(tmp_path, "2026-11-01/resume_agent_multi.csv", multi.encode())
    _write(tmp_path, "2026-11-01/resume_agent_ragged.csv", (HEADER + "\na,b\n").encode())
    rows = {r["file_name"]: r for r in ingest.manifest_rows(tmp_path)}
    multi_obs, ragged = rows["resume_agent_multi.csv"], rows["resume_agent_ragged.csv"]
    # header + 2 records, the second on 2 lines: 4 physical lines
    assert (multi_obs["loader"], multi_obs["n_data_records"], multi_obs["n_lines"]) == ("duckdb", 2, 4)
    assert (ragged["loader"], ragged["n_data_records"]) == ("python", 1)
    assert ragged["loader_note"].startswith("duckdb: ")


def _history(rows: list[dict]) -> list[Observation]:
    return [
        Observation(r["source_file"], r["sha256"], r["status"], r["observation_seq"], r["size_bytes"], r["modified_at"])
        for r in rows
    ]


@pytest.mark.parametrize("folder", ["2026-02-30", "2026-13-45", "2026-00-10", "2025-02-29"])
def test_a_drop_folder_shaped_like_a_date_that_is_not_one_is_rejected(tmp_path, folder):
    good = (HEADER + "\n" + row("r", "i", "q", "1") + "\n").encode()
    _write(tmp_path, f"{folder}/resume_agent_a.csv", good)
    _write(tmp_path, "2024-02-29/resume_agent_b.csv", good + b"\n")  # a leap day is a date
    rows = {r["source_file"]: r for r in ingest.manifest_rows(tmp_path)}
    bad = rows[f"{folder}/resume_agent_a.csv"]
    assert (bad["status"], bad["reject_reason"]) == ("rejected", f"drop folder '{folder}' is not a date (YYYY-MM-DD)")
    assert rows["2024-02-29/resume_agent_b.csv"]["status"] == "loaded"


def test_nothing_under_the_drops_folder_is_skipped_without_a_trace(tmp_path):
    good = (HEADER + "\n" + row("r", "i", "q", "1") + "\n").encode()
    _write(tmp_path, "2026-11-01/resume_agent_a.csv", good)
    _write(tmp_path, "2026-11-01/.resume_agent_hidden.csv", good + b"\n")
    _write(tmp_path, "2026-11-01/.cache/resume_agent_c.csv", good + b"\n\n")
    (tmp_path / "2026-11-01" / "resume_agent_gone.csv").symlink_to(tmp_path / "nowhere.csv")
    (tmp_path / "2026-11-01" / "resume_agent_dir.csv").mkdir()
    (tmp_path / "2026-11-01" / "linked").symlink_to(tmp_path / "2026-11-01" / ".cache")
    os.mkfifo(tmp_path / "2026-11-01" / "recruit_agent_pipe.jsonl")
    rows = ingest.manifest_rows(tmp_path)
    assert [(r["source_file"], r["status"], r["reject_reason"]) for r in rows] == [
        ("2026-11-01/.cache", "ignored", "hidden folder (its name starts with '.'): not read"),
        ("2026-11-01/.resume_agent_hidden.csv", "ignored", "hidden file (its name starts with '.'): not read"),
        ("2026-11-01/linked", "ignored", "a link to a folder: not followed"),
        ("2026-11-01/recruit_agent_pipe.jsonl", "rejected", "not a regular file (a device, pipe or socket)"),
        ("2026-11-01/resume_agent_a.csv", "loaded", None),
        ("2026-11-01/resume_agent_dir.csv", "rejected", "a folder, not a file"),
        ("2026-11-01/resume_agent_gone.csv", "rejected", "a broken symbolic link: its target does not exist"),
    ]
    assert all(r["sha256"] and len(r["sha256"]) == 64 for r in rows)
    # logged once: the next night sees the same problems and adds nothing
    assert ingest.manifest_rows(tmp_path, _history(rows)) == []


def test_a_file_that_cannot_be_read_is_rejected_and_the_others_load(tmp_path, monkeypatch):
    good = (HEADER + "\n" + row("r", "i", "q", "1") + "\n").encode()
    _write(tmp_path, "2026-11-01/resume_agent_a.csv", good)
    _write(tmp_path, "2026-11-01/summary_locked.json", b'{"test_cases": []}')
    _write(tmp_path, "2026-11-01/resume_agent_locked.csv", good + b"\n")
    locked = {"summary_locked.json", "resume_agent_locked.csv"}
    real_open = Path.open

    def deny(path, *args, **kwargs):  # a file this process may not read (as root, every file is readable)
        if path.name in locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(Path, "open", deny)
    rows = {r["source_file"]: r for r in ingest.manifest_rows(tmp_path)}
    assert rows["2026-11-01/resume_agent_a.csv"]["status"] == "loaded"
    for name in locked:
        assert (rows[f"2026-11-01/{name}"]["status"], rows[f"2026-11-01/{name}"]["reject_reason"]) == (
            "rejected",
            "cannot be read: Permission denied",
        ), name


def test_a_drop_file_misnamed_only_in_letter_case_is_rejected_not_ignored(tmp_path):
    good = (HEADER + "\n" + row("r", "i", "q", "1") + "\n").encode()
    _write(tmp_path, "2026-11-01/Resume_Agent_a.CSV", good)
    _write(tmp_path, "2026-11-01/SUMMARY_x.json", b"{}")
    _write(tmp_path, "2026-11-01/notes.txt", b"hello")
    rows = {r["source_file"]: r for r in ingest.manifest_rows(tmp_path)}
    assert rows["2026-11-01/notes.txt"]["status"] == "ignored"
    for path, kind in (("2026-11-01/Resume_Agent_a.CSV", "resume_agent"), ("2026-11-01/SUMMARY_x.json", "summary")):
        assert rows[path]["status"] == "rejected"
        assert rows[path]["reject_reason"].startswith(
            f"file name looks like a {kind} drop but differs in letter case: rename it to match <YYYY-MM-DD>/"
        )


def test_a_deleted_file_is_logged_once_as_removed_and_its_return_is_a_restore(tmp_path):
    good = (HEADER + "\n" + row("r", "i", "q", "1") + "\n").encode()
    _write(tmp_path, "2026-11-01/resume_agent_a.csv", good)
    _write(tmp_path, "2026-11-01/resume_agent_bad.csv", b"Run ID\nx\n")
    first = ingest.manifest_rows(tmp_path)
    assert [r["status"] for r in first] == ["loaded", "rejected"]
    history = _history(first)
    (tmp_path / "2026-11-01" / "resume_agent_a.csv").unlink()
    (tmp_path / "2026-11-01" / "resume_agent_bad.csv").unlink()
    removed = ingest.manifest_rows(tmp_path, history)
    assert [(r["source_file"], r["status"], r["observation_seq"]) for r in removed] == [
        ("2026-11-01/resume_agent_a.csv", "removed", 3),
        ("2026-11-01/resume_agent_bad.csv", "removed", 4),
    ]
    assert removed[0]["reject_reason"].startswith("no longer under the drops folder")
    history += _history(removed)
    assert ingest.manifest_rows(tmp_path, history) == []  # once
    _write(tmp_path, "2026-11-01/resume_agent_a.csv", good)
    (back,) = ingest.manifest_rows(tmp_path, history)
    assert (back["status"], back["duplicate_of"], back["sha256"]) == (
        "restored",
        "2026-11-01/resume_agent_a.csv",
        first[0]["sha256"],
    )


def test_a_multi_megabyte_csv_field_loads_under_the_default_record_limit():
    big = "가" * (5 * 2**20 // 3)  # 5 MB of UTF-8: the csv module's own limit is 128 KB
    text = HEADER + "\n" + row("r", "i", "q", "1", "질의", "", "", "1/1", big) + "\n"
    (record,) = list(ingest.read_records(text, RESUME))
    assert record.reject_reason is None and record.values["응답"] == big


def test_records_over_the_limit_are_rejected_naming_it_and_keep_only_their_start(monkeypatch):
    monkeypatch.setenv("AGENT_EVAL_MAX_RECORD_MB", "0.5")
    small, big = "a" * 1000, "b" * (2**20)  # 1 MB
    text = HEADER + "\n" + row("r", "i1", "q", "1", small) + "\n" + row("r", "i2", "q", "1", big) + "\n"
    ok, too_big = ingest.read_records(text, RESUME)
    assert ok.reject_reason is None
    assert (too_big.line_number, too_big.values) == (3, None)
    assert too_big.reject_reason == "record_too_large: 1.0 MB, over the limit of 0.5 MB (AGENT_EVAL_MAX_RECORD_MB)"
    assert len(too_big.raw_text) < 2100 and too_big.raw_text.endswith("characters; cut]")
    jsonl = '{"itemId": "a", "queryId": "q", "raw": "{}"}\n' + '{"itemId": "b", "queryId": "q", "raw": "' + big + '"}\n'
    lines = list(ingest.read_records(jsonl, kind_named("recruit_agent")))
    assert [r.reject_reason is None for r in lines] == [True, False]
    assert lines[1].reject_reason.startswith("record_too_large: 1.0 MB")
    dataset = (
        '{"test_cases": [{"id": "c1", "answer": "x", "contexts": ["c"]}, '
        '{"id": "c2", "answer": "' + big + '", "contexts": ["c"]}]}'
    )
    cases = list(ingest.read_records(dataset, kind_named("summary")))
    assert [(r.line_number, r.reject_reason is None) for r in cases] == [(0, True), (1, False)]
    assert cases[1].reject_reason.startswith("record_too_large: 1.0 MB")


def test_the_record_limit_setting_must_be_a_positive_number(monkeypatch):
    monkeypatch.setenv("AGENT_EVAL_MAX_RECORD_MB", "lots")
    with pytest.raises(ValueError, match="AGENT_EVAL_MAX_RECORD_MB='lots' is not a number of MB"):
        ingest.max_record_mb()


def test_a_csv_record_over_a_low_limit_is_not_loaded_by_duckdbs_reader(tmp_path, monkeypatch):
    """Below read_csv's own 2 MB line limit, DuckDB would load a record the
    exact parser rejects: the record limit is DuckDB's too, so the file
    takes the exact parser and the record is rejected."""
    monkeypatch.setenv("AGENT_EVAL_MAX_RECORD_MB", "0.5")
    big = "b" * 2**20  # 1 MB, under DuckDB's default 2 MB line size
    _write(
        tmp_path,
        "2026-11-01/resume_agent_a.csv",
        (HEADER + "\n" + row("r", "i1", "q", "1") + "\n" + row("r", "i2", "q", "1", big) + "\n").encode(),
    )
    (observed,) = ingest.manifest_rows(tmp_path)
    assert (observed["status"], observed["n_data_records"], observed["loader"]) == ("loaded", 2, "python")
    assert observed["loader_note"].endswith("CSV Error on Line: 3"), observed["loader_note"]  # the 1 MB record


def test_jsonl_records_are_one_per_non_blank_line(tmp_path):
    """One record per non-blank line, whatever it holds: a valid object, a
    line that is not JSON, a JSON value that is not an object, a missing
    field, blank and whitespace-only lines skipped, CR LF and a last line
    without a line break."""
    text = '{"itemId": 1, "queryId": "q", "raw": "{}"}\r\n\n   \nnot json\n[1, 2]\n{"itemId": 2}\n\t\n{"a": 1}'
    _write(tmp_path / "drops", "2026-11-01/recruit_agent_a.jsonl", text.encode())
    ((obs, rows),) = observe_and_load(tmp_path / "drops", tmp_path / "landing")
    # by hand: lines 1, 4, 5, 6 and 8 are records (2, 3 and 7 are blank)
    assert obs["n_data_records"] == 5
    assert [r["line_number"] for r in rows] == [1, 4, 5, 6, 8]
    assert [r["reject_reason"] is None for r in rows] == [True, False, False, False, False]


def test_the_loader_packages_imports_run_one_way():
    """common <- encodings, unicode_form <- csv_load <- records <- landing <- parse <-
    manifest / rows (kinds at the bottom, beside common): no module imports
    one at its own level or above it (the package's docstring)."""
    import ast

    level = {"common": 0, "kinds": 0, "unicode_form": 1, "encodings": 1, "json_stream": 1}
    level |= {"csv_load": 2, "records": 3, "landing": 4}
    level["parse"] = 5
    level |= {"manifest": 6, "rows": 6}
    folder = Path(ingest.__file__).parent
    assert {p.stem for p in folder.glob("*.py")} - {"__init__"} == set(level)
    for name, own in level.items():
        tree = ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "agent_eval.ingest":
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agent_eval.ingest."):
                imported = [node.module.rsplit(".", 1)[1]]
            else:
                continue
            for other in imported:
                assert level[other] < own, f"ingest/{name}.py imports {other}"


def test_a_dataset_is_parsed_once_for_its_cases_and_its_header(tmp_path, monkeypatch):
    """The summary dataset's cases and its top-level fields come from the
    manifest's one parse (the loaders parse nothing: json.loads is not
    called again), and again from the file once its landing is gone."""
    from agent_eval.ingest import records

    dataset = {
        "name": "claims",
        "thresholds": {"faithfulness": 0.7},
        "test_cases": [{"id": "c1", "answer": "a", "contexts": ["x"]}, {"id": "c2", "answer": "b", "contexts": []}],
    }
    drops, landing = tmp_path / "drops", tmp_path / "landing"
    _write(drops, "2026-11-01/summary_claims.json", json.dumps(dataset).encode())
    (obs,) = ingest.manifest_rows(drops, landing=landing)
    assert (obs["status"], obs["n_data_records"]) == ("loaded", 2)
    pending = [ingest.PendingFile(obs["source_file"], obs["sha256"], obs["loaded_at"])]
    parses = []  # parses of the document (the test's own json.loads of a case are not)
    real_loads = json.loads

    def loads(text, **kw):
        parses.extend(["document"] if '"test_cases"' in text else [])
        return real_loads(text, **kw)

    monkeypatch.setattr(records.json, "loads", loads)
    relation = ingest.load_pending(duckdb.connect(), "summary", drops, pending, landing)
    cases = [json.loads(r[0]) for r in relation.order("line_number").project("record_json").fetchall()]
    (header,) = ingest.headers_table("summary", drops, pending, landing).to_pylist()
    assert parses == []
    assert [c["id"] for c in cases] == ["c1", "c2"]
    assert json.loads(header["header_json"]) == {"name": "claims", "thresholds": {"faithfulness": 0.7}}
    shutil.rmtree(landing)
    (again,) = ingest.headers_table("summary", drops, pending, landing).to_pylist()
    assert again["header_json"] == header["header_json"] and parses == ["document"]


def test_a_lone_surrogate_escape_rejects_its_record_not_the_night(tmp_path):
    """\\ud800 alone is valid JSON syntax but no character (no UTF-8): the
    line or case holding it is a rejected record with its reason, the
    others load (it used to stop its kind's loader); in a dataset's
    top-level fields it rejects the file."""
    reason = "invalid_json: a \\u escape of a lone surrogate (\\ud800-\\udfff) is not a character"
    drops = tmp_path / "drops"
    _write(
        drops,
        "2026-11-01/recruit_agent_a.jsonl",
        b'{"itemId": 1, "queryId": "q", "raw": "\\ud800"}\n{"itemId": 2, "queryId": "q", "raw": "\\ud83d\\ude00"}\n',
    )

    def case(n: int, answer: str) -> str:  # the answer as written in the file
        return '{"id": "c' + str(n) + '", "answer": "' + answer + '", "contexts": []}'

    _write(
        drops,
        "2026-11-01/summary_a.json",
        ('{"test_cases": [' + case(1, "\\udfff") + ", " + case(2, "ok") + "]}").encode(),
    )
    _write(drops, "2026-11-01/summary_b.json", ('{"name": "\\ud800", "test_cases": [' + case(1, "ok") + "]}").encode())
    observed = {obs["source_file"]: (obs, rows) for obs, rows in observe_and_load(drops, tmp_path / "landing")}
    obs, rows = observed["2026-11-01/recruit_agent_a.jsonl"]
    assert [(r["line_number"], r["reject_reason"]) for r in rows] == [(1, reason), (2, None)]
    assert json.loads(rows[1]["record_json"])["raw"] == "\U0001f600"
    obs, rows = observed["2026-11-01/summary_a.json"]
    assert [(r["line_number"], r["reject_reason"]) for r in rows] == [(0, reason), (1, None)]
    assert json.loads(rows[0]["raw_text"])["answer"] == "\udfff"  # kept as its escape
    obs, rows = observed["2026-11-01/summary_b.json"]
    assert (obs["status"], obs["reject_reason"], rows) == (
        "rejected",
        "not valid JSON: a \\u escape of a lone surrogate (\\ud800-\\udfff) is not a character, in a top-level field",
        [],
    )


def test_a_lone_surrogate_in_a_whole_document_or_a_rejection_reason_does_not_stop_the_night(tmp_path):
    """The other places a lone surrogate reached: an engagement expected.json
    (its one record) and a rejection reason that quotes a key of the file."""
    drops = tmp_path / "drops"
    _write(
        drops,
        "2026-11-01/engagement/run-1/expected.json",
        b'{"description": "\\ud800", "expected": {"likeCount": 3}}',
    )
    _write(
        drops,
        "2026-11-01/engagement/run-2/expected.json",
        b'{"expected": {"likeCount": 3}, "perPersona": {"\\ud800": "not an object"}}',
    )
    observed = {obs["source_file"]: (obs, rows) for obs, rows in observe_and_load(drops, tmp_path / "landing")}
    obs, rows = observed["2026-11-01/engagement/run-1/expected.json"]
    assert (obs["status"], obs["n_data_records"]) == ("loaded", 1)
    ((record,),) = [[(r["reject_reason"], json.loads(r["raw_text"])["description"]) for r in rows]]
    assert record == ("invalid_json: a \\u escape of a lone surrogate (\\ud800-\\udfff) is not a character", "\ud800")
    obs, rows = observed["2026-11-01/engagement/run-2/expected.json"]
    assert (obs["status"], rows) == ("rejected", [])
    assert "['\\ud800']" in obs["reject_reason"], obs["reject_reason"]  # the key's escape, as text


def _with_lone_surrogate(value: dict, *path: str | int) -> None:
    """``value`` with the string at ``path`` replaced by a lone surrogate,
    which json.dumps writes as the escape \\ud800."""
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = "\ud800"


def _replace_line(path: Path, index: int, line: str) -> None:
    """Line ``index`` (from 0) of a text file replaced by ``line``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[index] = line
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _change_line(path: Path, index: int, change: Callable[[Any], None]) -> None:
    """Line ``index`` (from 0) of a JSONL file parsed, changed in place by
    ``change`` and written again."""
    value = json.loads(path.read_text(encoding="utf-8").splitlines()[index])
    change(value)
    _replace_line(path, index, json.dumps(value))


def _line_index(path: Path, found: Callable[[Any], bool]) -> int:
    """The first line of a JSONL file whose value ``found`` picks."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines) if found(json.loads(line)))


def _changed_log(log: Path, target: Path, changes: dict[str, Callable[[Any], None]]) -> None:
    """An Inspect AI log written to ``target`` with each member named in
    ``changes`` parsed, changed in place and written again."""

    def rewrite(change: Callable[[Any], None]) -> Callable[[bytes], bytes]:
        def member(data: bytes) -> bytes:
            value = json.loads(data)
            change(value)
            return json.dumps(value).encode()

        return member

    target.parent.mkdir(parents=True, exist_ok=True)
    data = log.read_bytes()
    target.write_bytes(mutations.rewrite_members(data, {name: rewrite(c) for name, c in changes.items()}))


def test_a_lone_surrogate_in_a_tool_output_rejects_its_record_not_the_night(tmp_path):
    """Each imported tool's reader keeps what it parsed; a \\ud800 escape in
    one result is that record's rejection (landing checks what it cannot
    encode), in a file's header the file's, and every other record lands:
    the files are the tools' own sample outputs with one value changed."""
    reason = "invalid_json: a \\u escape of a lone surrogate (\\ud800-\\udfff) is not a character"
    night, drops = "2026-11-01", tmp_path / "drops"
    for tool, source in (("lm_eval", night), ("openai_evals", "2026-10-01"), ("promptfoo", night)):
        shutil.copytree(SAMPLE_DROPS / source / tool, drops / night / tool)
    # lm-evaluation-harness: the third sample of a samples file
    samples = next((drops / night / "lm_eval").rglob("samples_*.jsonl"))
    _change_line(samples, 2, lambda sample: _with_lone_surrogate(sample, "resps", 0, 0))
    # OpenAI Evals: an event of one record file, the spec line of the other
    records = sorted((drops / night / "openai_evals").glob("*.jsonl"))
    event = _line_index(records[0], lambda line: line.get("type") == "sampling")
    _change_line(records[0], event, lambda line: _with_lone_surrogate(line, "data", "sampled"))
    spec = _line_index(records[1], lambda line: "spec" in line)
    _change_line(records[1], spec, lambda line: _with_lone_surrogate(line, "spec", "eval_name"))
    # promptfoo: a var of the second result of a -o out.json output (the
    # test's identity hashes it)
    output_path = drops / night / "promptfoo" / "greetings.json"
    output = json.loads(output_path.read_text(encoding="utf-8"))
    for where in (("vars",), ("testCase", "vars")):
        _with_lone_surrogate(output["results"]["results"][1], *where, "name")
    output_path.write_text(json.dumps(output), encoding="utf-8")
    n_results = len(output["results"]["results"])
    # Inspect AI: the first sample member of a log
    log = next((SAMPLE_DROPS / night / "inspect").glob("*.eval"))
    changed_log = drops / night / "inspect" / log.name
    first = mutations.sample_members(log.read_bytes())[0]
    _changed_log(log, changed_log, {first: lambda member: _with_lone_surrogate(member, "output", "completion")})

    observed = {obs["source_file"]: (obs, rows) for obs, rows in observe_and_load(drops, tmp_path / "landing")}

    def rejected(path: Path) -> tuple[str, list[tuple[int, str]], int]:
        obs, rows = observed[path.relative_to(drops).as_posix()]
        return obs["status"], [(r["line_number"], r["reject_reason"]) for r in rows if r["reject_reason"]], len(rows)

    status, reasons, n_rows = rejected(samples)
    assert (status, reasons, n_rows) == ("loaded", [(3, reason)], len(samples.read_text().splitlines()))
    status, reasons, _ = rejected(records[0])
    assert (status, reasons) == ("loaded", [(event + 1, reason)])
    obs, rows = observed[records[1].relative_to(drops).as_posix()]
    assert (obs["status"], rows) == ("rejected", [])
    assert obs["reject_reason"] == f"not valid JSON: {reason.removeprefix('invalid_json: ')}, in the file's header"
    status, reasons, n_rows = rejected(output_path)
    assert (status, reasons, n_rows) == ("loaded", [(2, reason)], n_results)
    obs, rows = observed[changed_log.relative_to(drops).as_posix()]
    flagged = [r for r in rows if r["reject_reason"]]
    assert obs["status"] == "loaded" and [r["reject_reason"] for r in flagged] == [reason]
    assert "\\ud800" in flagged[0]["raw_text"]  # the record's text, the escape written out
    good = [o for o, _ in observed.values() if o["source_file"] != records[1].relative_to(drops).as_posix()]
    assert {o["status"] for o in good} == {"loaded"}


DEEP_ARRAY = "[" * 5000 + "]" * 5000  # deeper than Python's decoder recurses
LONG_INTEGER = "9" * 5000  # more digits than int() converts
TOO_DEEP = "arrays and objects nested deeper than 512 levels"
TOO_LONG = "an integer of more than 4300 digits"


def test_json_nested_too_deeply_or_an_integer_too_long_is_rejected_not_the_night(tmp_path):
    """Python's JSON decoder raises RecursionError for deep nesting and
    ValueError for an integer over its digit limit, outside JSONDecodeError:
    in every format each is a rejection with its reason (the record's where
    a format has records, else the file's), never a stopped night."""
    night, drops = "2026-11-01", tmp_path / "drops"
    shutil.copytree(SAMPLE_DROPS / night / "lm_eval", drops / night / "lm_eval")
    shutil.copytree(SAMPLE_DROPS / "2026-10-01" / "openai_evals", drops / night / "openai_evals")

    # the column where nesting passes 512 levels: the object opens the first
    prefix = '{"itemId": 1, "queryId": "q", "raw": '
    recruit = drops / night / "recruit_agent_deep.jsonl"
    recruit.write_text(
        prefix + DEEP_ARRAY + "}\n" + prefix + LONG_INTEGER + "}\n" + prefix + "1}\n",
        encoding="utf-8",
    )
    summary_prefix = '{"test_cases": '
    summary = drops / night / "summary_deep.json"
    summary.write_text(summary_prefix + DEEP_ARRAY + "}", encoding="utf-8")
    samples = next((drops / night / "lm_eval").rglob("samples_*.jsonl"))
    _replace_line(samples, 1, '{"doc_id": ' + LONG_INTEGER + "}")
    record = sorted((drops / night / "openai_evals").glob("*.jsonl"))[0]
    _replace_line(record, 2, DEEP_ARRAY)
    promptfoo = drops / night / "promptfoo" / "deep.json"
    promptfoo.parent.mkdir()
    promptfoo.write_text('{"results": {"version": 3, "results": [' + DEEP_ARRAY + "]}}", encoding="utf-8")
    observed = {obs["source_file"]: (obs, rows) for obs, rows in observe_and_load(drops, tmp_path / "landing")}

    def seen(path: Path) -> tuple[dict, list[tuple[int, str]]]:
        obs, rows = observed[path.relative_to(drops).as_posix()]
        return obs, [(r["line_number"], r["reject_reason"]) for r in rows if r["reject_reason"]]

    obs, rejected = seen(recruit)
    assert obs["status"] == "loaded" and obs["n_data_records"] == 3
    assert rejected == [
        (1, f"invalid_json: {TOO_DEEP} at column {len(prefix) + 512}"),
        (2, f"invalid_json: {TOO_LONG} at column {len(prefix) + 1}"),
    ]
    obs, _ = seen(summary)
    assert (obs["status"], obs["reject_reason"]) == (
        "rejected",
        f"not valid JSON: {TOO_DEEP} at line 1 column {len(summary_prefix) + 512}",
    )
    for path, reason in ((samples, TOO_LONG), (record, TOO_DEEP)):
        obs, rejected = seen(path)
        assert obs["status"] == "loaded" and [line for line, _ in rejected] == [2 if path == samples else 3]
        assert reason in rejected[0][1], rejected
    obs, _ = seen(promptfoo)
    assert obs["status"] == "rejected" and TOO_DEEP in obs["reject_reason"], obs["reject_reason"]
    assert all(
        o["status"] == "loaded"
        for o, _ in observed.values()
        if o["source_file"] not in {summary.relative_to(drops).as_posix(), promptfoo.relative_to(drops).as_posix()}
    )


def test_an_identity_no_column_holds_rejects_its_record(tmp_path):
    """An Inspect sample's id (int | str) and epoch (a positive int), an
    OpenAI Evals event_id (an int): staging casts them to integer columns,
    so a value no such column holds (a null id, an epoch of 2**40, an
    event_id of 10**30) is a rejected record, not a null key that stops
    the night."""
    night, drops = "2026-11-01", tmp_path / "drops"
    log = next((SAMPLE_DROPS / night / "inspect").glob("*.eval"))
    changed_log = drops / night / "inspect" / log.name
    members = mutations.sample_members(log.read_bytes())[:2]
    _changed_log(
        log,
        changed_log,
        {members[0]: lambda sample: sample.update(id=None), members[1]: lambda sample: sample.update(epoch=2**40)},
    )
    shutil.copytree(SAMPLE_DROPS / "2026-10-01" / "openai_evals", drops / night / "openai_evals")
    record = sorted((drops / night / "openai_evals").glob("*.jsonl"))[0]
    event = _line_index(record, lambda line: "event_id" in line)
    _change_line(record, event, lambda line: line.update(event_id=10**30))
    observed = {obs["source_file"]: (obs, rows) for obs, rows in observe_and_load(drops, tmp_path / "landing")}
    obs, rows = observed[changed_log.relative_to(drops).as_posix()]
    reasons = [r["reject_reason"] for r in rows if r["reject_reason"]]
    assert obs["status"] == "loaded" and reasons == [
        f"invalid_sample: {members[0]}: id None is not a string or an integer",
        f"invalid_sample: {members[1]}: epoch {2**40} is not a positive integer",
    ]
    obs, rows = observed[record.relative_to(drops).as_posix()]
    assert [(r["line_number"], r["reject_reason"]) for r in rows if r["reject_reason"]] == [
        (event + 1, f"invalid_event: line {event + 1}: event_id {10**30} is not a 64-bit integer")
    ]


def test_a_reader_that_fails_rejects_its_file_with_the_error_and_the_others_load(tmp_path, monkeypatch):
    """No reader's fault stops the night: an exception a reader did not
    mean (a bug, an input it does not expect) rejects that file with the
    error as its reason, and every other file loads."""
    from agent_eval.agents.promptfoo import reader

    def broken(path: Path, kind):
        raise KeyError("results")

    monkeypatch.setattr(reader, "read_output", broken)
    night, drops = "2026-11-01", tmp_path / "drops"
    for name in ("promptfoo", "lm_eval"):
        shutil.copytree(SAMPLE_DROPS / night / name, drops / night / name)
    landing = tmp_path / "landing"
    observed = {obs["source_file"]: obs for obs, _ in observe_and_load(drops, landing)}
    (output,) = [obs for path, obs in observed.items() if "/promptfoo/" in path]
    assert (output["status"], output["reject_reason"]) == ("rejected", "could not be read: KeyError: 'results'")
    assert {obs["status"] for path, obs in observed.items() if "/lm_eval/" in path} == {"loaded"}
    assert not list(landing.rglob(f"*{output['sha256']}*"))  # nothing of it landed


def test_the_nfc_check_sees_a_decomposed_syllable_split_between_two_chunks():
    from agent_eval.ingest.unicode_form import NfcCheck

    nfd = unicodedata.normalize("NFD", "선택").encode()  # 6 jamo, 3 bytes each
    for cut in range(1, len(nfd)):
        check = NfcCheck()
        check.feed(b"x" * 10 + nfd[:cut])
        check.feed(nfd[cut:], final=True)
        assert not check.is_nfc, cut
    check = NfcCheck()
    for chunk in (b"plain ascii ", "선택해 주세요".encode(), b" and more"):
        check.feed(chunk)
    check.feed(b"", final=True)
    assert check.is_nfc


def test_a_header_longer_than_the_head_is_read_whole_not_judged_cut(tmp_path):
    """A header of thousands of columns is longer than the bytes the loader
    looks at first: judged on that cut line, a required column beyond it
    was 'missing' and a cut name a 'duplicate'. It is read whole."""
    from agent_eval.agents.resume_agent import COLUMNS
    from agent_eval.ingest import csv_load
    from agent_eval.ingest.records import read_csv_header

    extra = [f"extra_{i}" for i in range(8000)]  # about 90 KB of header
    header = [*COLUMNS[:-1], *extra, COLUMNS[-1]]  # Raw JSON after the cut
    assert len(",".join(header)) > csv_load.HEAD_BYTES
    row = ["r1", "i1", "q1", "1", "질의", "", "", "1/1", "응답", "", "", "", "", *(["x"] * len(extra)), '{"a": 1}']
    text = "\r\n".join(",".join(f'"{v}"' if "{" in v else v for v in r) for r in [header, row, row]) + "\r\n"
    data = text.encode("utf-8")
    assert read_csv_header(data[: csv_load.HEAD_BYTES], "utf-8", COLUMNS, whole_file=False) is None
    drops = tmp_path / "drops" / "2026-11-01"
    drops.mkdir(parents=True)
    (drops / "resume_agent_wide.csv").write_bytes(data)
    ((obs, rows),) = observe_and_load(tmp_path / "drops", tmp_path / "landing")
    assert obs["status"] == "loaded", obs["reject_reason"]
    assert obs["n_data_records"] == 2 and len(rows) == 2


def wide_resume_csv(n_extra: int, n_rows: int) -> bytes:
    """A resume export whose header has n_extra more columns (named
    extra_<i>, about 11 bytes each) before its last one, and n_rows rows."""
    from agent_eval.agents.resume_agent import COLUMNS

    extra = [f"extra_{i}" for i in range(n_extra)]
    header = [*COLUMNS[:-1], *extra, COLUMNS[-1]]
    row = ["r1", "i1", "q1", "1", "질의", "", "", "1/1", "응답", "", "", "", "", *(["x"] * n_extra), '"{""a"": 1}"']
    return ("\r\n".join([",".join(header)] + [",".join(row)] * n_rows) + "\r\n").encode("utf-8")


def test_the_exact_parsers_memory_follows_the_record_limit_not_the_file(tmp_path, monkeypatch):
    """A header of 15,500 columns takes the exact parser (it is longer than
    the head). That parser held the whole text, its lines and every row's
    extra columns as JSON until the end: memory grew with rows x columns
    (4.7 GB for a large file). It reads line by line and lands a batch at
    a time: its Python allocations stay within a multiple of the record
    limit (1 MB here; a 15,500-column record is some 15,500 Python objects)
    for a file several times the limit, whose rows' extra columns are some
    260 KB of JSON each (150 rows: about 39 MB)."""
    import tracemalloc

    monkeypatch.setenv("AGENT_EVAL_MAX_RECORD_MB", "1")
    drops = tmp_path / "drops" / "2026-11-01"
    drops.mkdir(parents=True)
    data = wide_resume_csv(15500, 150)
    assert len(data) > 4 * 2**20
    (drops / "resume_agent_wide.csv").write_bytes(data)
    tracemalloc.start()
    try:
        (obs,) = ingest.manifest_rows(tmp_path / "drops", landing=tmp_path / "landing")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert obs["status"] == "loaded", obs["reject_reason"]
    assert obs["n_data_records"] == 150 and obs["loader"] == "python"
    assert peak < 24 * 2**20, f"{peak / 2**20:.1f} MB"


@pytest.mark.parametrize(("n_extra", "loader"), [(0, "duckdb"), (40, "duckdb"), (15500, "python")])
def test_extra_columns_are_named_once_per_file_and_each_row_keeps_only_their_values(tmp_path, n_extra, loader):
    """Each row kept its extra columns as a JSON object, header -> value:
    15,500 names repeated in each of 1,500 rows made some 400 MB of text
    for a 47 MB file, and the build peaked over its memory budget. The
    names are the file's, kept once in its manifest row; a row keeps the
    values, in header order, whichever parser read the file."""
    drops = tmp_path / "drops" / "2026-11-01"
    drops.mkdir(parents=True)
    n_rows = 3
    (drops / "resume_agent_wide.csv").write_bytes(wide_resume_csv(n_extra, n_rows))
    ((obs, rows),) = observe_and_load(tmp_path / "drops", tmp_path / "landing")
    assert obs["status"] == "loaded" and obs["loader"] == loader, obs["loader_note"]
    assert len(rows) == n_rows
    if n_extra == 0:
        assert obs["extra_columns"] is None and {r["extra_columns"] for r in rows} == {None}
        return
    # wide_resume_csv: extra_<i> columns between the last two required ones, each value "x"
    assert json.loads(obs["extra_columns"]) == [f"extra_{i}" for i in range(n_extra)]
    for stored in (r["extra_columns"] for r in rows):
        assert json.loads(stored) == ["x"] * n_extra
        assert len(stored.encode()) == 2 + 4 * n_extra - 1  # ["x","x",...]: no name in it


def test_a_header_over_the_record_limit_rejects_its_file_alone(tmp_path, monkeypatch):
    """The header is a record: one over the record limit rejects its file,
    saying it is the header (line 1) and why, before more than the limit of
    it is read; the other files of the night load."""
    monkeypatch.setenv("AGENT_EVAL_MAX_RECORD_MB", "1")
    drops = tmp_path / "drops" / "2026-11-01"
    drops.mkdir(parents=True)
    (drops / "resume_agent_wider.csv").write_bytes(wide_resume_csv(100_000, 2))  # a header of about 1.1 MB
    (drops / "resume_agent_nightly.csv").write_text(HEADER + "\n" + row("r1", "i1", "q1", "1") + "\n", encoding="utf-8")
    found = {
        obs["source_file"]: (obs, rows) for obs, rows in observe_and_load(tmp_path / "drops", tmp_path / "landing")
    }
    wider, _ = found["2026-11-01/resume_agent_wider.csv"]
    assert wider["status"] == "rejected"
    assert "header" in wider["reject_reason"] and "line 1" in wider["reject_reason"]
    assert "record_too_large" in wider["reject_reason"] and "1 MB" in wider["reject_reason"]
    nightly, rows = found["2026-11-01/resume_agent_nightly.csv"]
    assert nightly["status"] == "loaded" and len(rows) == 1
