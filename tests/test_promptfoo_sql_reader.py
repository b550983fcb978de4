"""DuckDB's reading of a promptfoo output (agent_eval.agents.promptfoo.sql_reader)
lands, record for record, what Python's reader (reader.read_output_in_python)
makes of it: the header, every record's fields, line number and rejection.
Python's reader is the reference (docs/promptfoo-outputs.md); the outputs
are the fixtures promptfoo wrote and hostile variants of their results."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pyarrow as pa
import pytest

from agent_eval.agents.promptfoo import reader, sql_reader

DROPS = Path(__file__).parent / "fixtures" / "promptfoo" / "drops"
NIGHT_2 = DROPS / "2026-11-02" / "promptfoo" / "greetings.json"


def _python(path: Path) -> tuple[dict, list[tuple]]:
    header, records = reader.read_output_in_python(path)
    rows = [
        (r.line_number, r.reject_reason, r.raw_text, None if r.values is None else json.loads(r.values_json or "null"))
        for r in records
    ]
    return header, rows


def _sql(path: Path) -> tuple[dict, list[tuple]] | None:
    landed = (sql_reader.read_jsonl if path.suffix == ".jsonl" else sql_reader.read_json)(path)
    if landed is None:
        return None
    header, table = landed
    rows = [
        (
            r["line_number"],
            r["reject_reason"],
            r["raw_text"],
            None if r["record_json"] is None else json.loads(r["record_json"]),
        )
        for r in table.to_pylist()
    ]
    return header, rows


def _results() -> list[dict]:
    return json.loads(NIGHT_2.read_text(encoding="utf-8"))["results"]["results"]


def _hostile() -> tuple[list[dict], list[str]]:
    """Results of every shape the reader treats apart, and lines that are
    no result (inserted among them when written as .jsonl)."""
    base = _results()

    def result(i: int, **changes) -> dict:
        found = copy.deepcopy(base[i % len(base)])
        found.update(changes)
        return found

    rows = [result(0), result(1)]
    again = result(2, promptIdx=rows[0]["promptIdx"], testIdx=rows[0]["testIdx"])
    rows += [again, result(3, score="high"), result(4, success=None), result(7, provider="plain-id")]
    rows += [result(16, cost=True), result(17, vars=None), result(18, testCase="str")]
    rows += [result(19, promptIdx=0, testIdx=999, score=0.0)]
    odd = [result(i) for i in range(5, 16)]
    odd[0]["gradingResult"]["componentResults"].append("not an object")
    odd[1]["response"]["output"] = {"text": "hi", "n": [1, 2.5]}
    odd[2]["prompt"] = {"raw": "only raw"}
    odd[3]["prompt"] = {"label": "", "display": "", "raw": ""}
    del odd[4]["testIdx"]
    del odd[5]["testCase"]
    odd[6]["tokenUsage"] = None
    odd[7]["provider"] = {"id": "p", "label": ""}
    odd[8]["gradingResult"] = None
    odd[9]["testCase"]["assert"] = None
    odd[10]["gradingResult"]["componentResults"][0]["assertion"]["value"] = ["a", "b"]
    more = [result(i) for i in range(20, 23)]
    more[0]["gradingResult"]["componentResults"][0]["score"] = "x"
    more[1]["gradingResult"]["componentResults"] = {}
    more[2]["vars"] = more[2]["testCase"]["vars"] = {"b": 1, "a": {"z": 1.5, "y": [1e-7, 12345678901234567890]}}
    lines = ["not json {", "", "   ", "[1, 2]", '{"promptIdx": 1, "testIdx": 77, "success": true}']
    return rows + odd + more, lines


def _write_jsonl(path: Path, results: list[dict], lines: list[str], end: str = "\n") -> Path:
    texts = [json.dumps(r, ensure_ascii=False) for r in results]
    for at, line in zip((3, 5, 6, 8, 9), lines, strict=True):
        texts.insert(at, line)
    path.write_text("\n".join(texts) + end, encoding="utf-8")
    return path


@pytest.mark.parametrize("path", sorted(p for p in DROPS.rglob("*.json*") if "_v2" not in p.name), ids=str)
def test_the_fixtures_land_as_the_python_reader_lands_them(path):
    assert _sql(path) == _python(path)


def test_hostile_lines_and_results_land_as_the_python_reader_lands_them(tmp_path):
    results, lines = _hostile()
    for name, end in (("ends.jsonl", "\n"), ("cut.jsonl", "\nnot json")):
        path = _write_jsonl(tmp_path / name, results, lines, end)
        got, want = _sql(path), _python(path)
        assert got == want
        reasons = [row[1].split(":")[0] for row in want[1] if row[1]]
        # the reader's every reason is among them: SQL left each to Python
        assert {"invalid_json", "invalid_result", "duplicate_result", "invalid_score"} <= set(reasons)
    document = json.loads(NIGHT_2.read_text(encoding="utf-8"))
    document["results"]["results"] = [*results, 5, "text"]
    # the metadata first: the header is completed in the file's order
    document = {"metadata": document.pop("metadata"), **document}
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert _sql(path) == _python(path)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("nan.jsonl", '{"promptIdx": 0, "testIdx": 0, "success": true, "score": NaN}\n'),
        ("inf.jsonl", '{"promptIdx": 0, "testIdx": 0, "success": true, "latencyMs": -infinity}\n'),
        ("comma.jsonl", '{"promptIdx": 0, "testIdx": 0, "success": true,}\n'),
        ("huge.jsonl", '{"promptIdx": 0, "testIdx": 0, "success": true, "cost": 1e400}\n'),
        ("surrogate.jsonl", '{"promptIdx": 0, "testIdx": 0, "success": true, "error": "\\ud800"}\n'),
        ("cr.jsonl", '{"promptIdx": 0, "testIdx": 0, "success": true}\r\n'),
        ("column.jsonl", '{"testIdx": 0, "success": true}\n'),
        ("list.json", "[1, 2]"),
        ("twice.json", '{"results": {"version": 3, "version": 3, "results": []}}'),
    ],
)
def test_text_duckdb_reads_otherwise_is_left_to_the_python_reader(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert _sql(path) is None


def test_an_output_not_utf8_is_left_to_the_python_reader(tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"promptIdx": 0, "testIdx": 0, "success": true, "error": "\xe9"}\n')
    assert _sql(path) is None


def test_a_version_2_output_is_left_to_the_python_reader():
    assert _sql(DROPS / "2026-11-04" / "promptfoo" / "greetings_v2.json") is None


def test_a_clean_output_is_landed_by_sql_without_python_decoding_a_result(tmp_path, monkeypatch):
    def decoded(*args, **kwargs):
        raise AssertionError("Python decoded a result SQL takes")

    path = tmp_path / "clean.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _results()), encoding="utf-8")
    want = _python(path)
    monkeypatch.setattr(reader, "_result_record", decoded)
    header, table = reader.read_output(path)
    assert table.num_rows == len(want[1]) == 40
    assert header == want[0]


def test_an_output_over_the_size_limit_is_streamed_by_the_python_reader(tmp_path, monkeypatch):
    path = tmp_path / "large.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _results()), encoding="utf-8")
    monkeypatch.setattr(sql_reader, "MAX_BYTES", path.stat().st_size - 1)
    _, records = reader.read_output(path)
    assert not isinstance(records, pa.Table)
    assert len(list(records)) == 40
