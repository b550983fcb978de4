"""Reading an EvalVault run export: its header and its records.

EvalVault (github.com/ntts9990/EvalVault) exports a stored run two ways,
both read here (docs/evalvault.md):

- the run workbook, ``evalvault_run_<run_id>.xlsx``, written by
  ``export_run_to_excel`` (src/evalvault/adapters/outbound/storage/
  base_sql.py) with openpyxl: one sheet per table, a header row of column
  names and one row per record. The warehouse reads the sheets ``Summary``
  (the run's figures: its pass rate), ``Run`` (its thresholds),
  ``TestCases`` (one row per test case), ``MetricScores`` (one row per test
  case and metric) and, when present, ``MetricsSummary`` (each metric's
  mean and pass rate as EvalVault computed them). The other sheets
  (prompts, stages, feedback...) are not read.
- the JSON export, ``evalvault export <run_id> -o file.json``
  (src/evalvault/adapters/inbound/cli/commands/history.py): the run's
  ``to_summary_dict()`` (its pass rate, thresholds, ``avg_<metric>``) and
  ``results``, one per test case with its ``metrics``.

The workbook is opened read-only (openpyxl streams each sheet's rows from
the zip); the JSON is read as a stream (agent_eval.ingest.json_stream),
its results one at a time. Neither export carries a format version: a
file is recognised by its sheets and columns, or its ``run_id`` and
``results``.

Records: one per test case (a ``TestCases`` row, a ``results`` entry) and
one per score (a ``MetricScores`` row, a ``metrics`` entry), so a file's
records are its test cases plus its scores. A record that cannot be used
is rejected with ``<code>: <where>: <why>`` (where = sheet and row, or the
JSON path): a test case id that is empty or repeated, a score that is
empty (EvalVault's workbook writes a NaN score as an empty cell), NaN or
not a number, a threshold or count that is not a number, a score of an
unknown or rejected test case, a second score of the same test case and
metric. A rejected score keeps its test case and metric in its values, so
that the test case is not counted as passing (EvalVault: NaN >= threshold
is false). A file that cannot be used as a whole (not a readable xlsx, a
required sheet or column missing, not JSON, no results) raises
RejectedFile.

The reader only reads and checks: thresholds, verdicts and every figure
are the dbt models' (models/*/evalvault).
"""

from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Iterator
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from agent_eval.ingest.common import RejectedFile, clipped, json_loads, max_record_bytes, too_large
from agent_eval.ingest.json_stream import JsonStream
from agent_eval.ingest.records import Record

WHAT = "an EvalVault run export"

# the columns each sheet must have (export_run_to_excel writes more)
REQUIRED_SHEETS: dict[str, tuple[str, ...]] = {
    "Summary": ("run_id", "dataset_name", "model_name", "total_test_cases", "pass_rate"),
    "Run": ("run_id", "dataset_name", "model_name", "pass_rate", "metrics_evaluated", "thresholds"),
    "TestCases": ("id", "test_case_id"),
    "MetricScores": ("result_id", "test_case_id", "metric_name", "score", "threshold"),
}
OPTIONAL_SHEETS: dict[str, tuple[str, ...]] = {
    "MetricsSummary": ("metric_name", "avg_score", "pass_rate", "samples"),
}
RUN_FIELDS = (
    "run_id",
    "dataset_name",
    "dataset_version",
    "model_name",
    "started_at",
    "finished_at",
    "total_tokens",
    "total_cost_usd",
    "pass_rate",
    "created_at",
)
SUMMARY_FIELDS = ("total_test_cases", "passed_test_cases", "total_tokens", "total_cost_usd", "pass_rate")
CASE_TEXT_FIELDS = ("trace_id", "started_at", "finished_at", "question", "answer", "contexts", "ground_truth")


def read_run(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    """The run's header (completed once the records are read) and its
    test case and score records."""
    if path.suffix.lower() == ".json":
        return _read_json(path)
    return _read_workbook(path)


# ---------------------------------------------------------------- values


def _finite(value: Any) -> Any:
    """``value`` made JSON: a NaN or infinity as the string "NaN" /
    "Infinity" / "-Infinity", a date or time as ISO text."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _number_problem(name: str, value: Any) -> str | None:
    """Why ``value`` is not a usable number (None when it is one, or empty)."""
    if value is None or _is_number(value):
        return None
    if isinstance(value, float):
        return f"{name} is {_finite(value)}, not a finite number"
    if isinstance(value, str):
        return f"{name} is the text {value!r}, not a number"
    return f"{name} is {value!r}, not a number"


def _score_problem(value: Any, empty_means: str) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return f"score is empty ({empty_means})"
    return _number_problem("score", value)


def _id_text(value: Any) -> str | None:
    """An id as text: EvalVault's ids are text (test cases) or integers
    (result rows); a whole number read back as a float is that integer."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(_finite(value)).strip()
    return text or None


def _json_text(value: Any) -> str | None:
    """A cell that EvalVault writes as JSON text (contexts), kept as text."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(_finite(value), ensure_ascii=False)


def _parse_json_cell(sheet: str, column: str, value: Any, default: Any) -> Any:
    """A cell EvalVault writes as JSON text (thresholds, metrics_evaluated)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if not isinstance(value, str):
        raise RejectedFile(f"sheet {sheet}: {column} is {value!r}, not JSON text")
    try:
        return json_loads(value)
    except ValueError as err:
        raise RejectedFile(f"sheet {sheet}: {column} is not valid JSON: {err}") from None


def _sized(number: int, values: dict[str, Any], where: str) -> Record:
    """The record, or its rejection when it is over the record-size limit."""
    text = json.dumps(values, ensure_ascii=False)
    limit = max_record_bytes()
    if len(text) * 4 > limit and len(text.encode()) > limit:
        return Record(number, None, clipped(text), too_large(len(text.encode())) + f" ({where})")
    return Record(number, values)


class _Checks:
    """What the records read so far say about the next ones: the test
    cases by id (and by result row id), and the scores seen. Each check
    reads the values as written; the record keeps them made JSON."""

    def __init__(self) -> None:
        self.cases: dict[str, str] = {}  # test case id -> where its record is
        self.rejected_cases: dict[str, str] = {}  # test case id -> where (no valid record)
        self.result_ids: dict[str, str] = {}  # result row id -> test case id
        self.scores: dict[tuple[str, str], str] = {}  # (test case, metric) -> where

    def case(self, number: int, where: str, values: dict[str, Any], raw: str) -> Record:
        case_id = values.get("test_case_id")
        result_id = values.get("result_id")
        problem = self._case_problem(where, case_id, result_id, values)
        kept = _finite(values)
        if problem is None:
            record = _sized(number, kept, where)
            if record.reject_reason is None:
                self.cases[case_id] = where
                self.rejected_cases.pop(case_id, None)
                if result_id is not None:
                    self.result_ids[result_id] = case_id
                return record
            problem = record.reject_reason
        if case_id and case_id not in self.cases:
            self.rejected_cases.setdefault(case_id, where)
        return Record(number, kept, raw, problem)

    def _case_problem(self, where: str, case_id: Any, result_id: Any, values: dict[str, Any]) -> str | None:
        if case_id is None:
            return f"invalid_test_case: {where}: test_case_id is empty"
        if case_id in self.cases:
            return f"duplicate_test_case: {where}: test case {case_id!r} again (also {self.cases[case_id]})"
        if result_id is not None and result_id in self.result_ids:
            return (
                f"duplicate_test_case: {where}: result id {result_id} again"
                f" (also test case {self.result_ids[result_id]!r})"
            )
        for name in ("tokens_used", "latency_ms", "cost_usd"):
            value = values.get(name)
            problem = _number_problem(name, value)
            if problem is None and value is not None and value < 0:
                problem = f"{name} is {value!r}, not a count (negative)"
            if problem:
                return f"invalid_value: {where}: {problem}"
        return None

    def score(self, number: int, where: str, values: dict[str, Any], raw: str, empty_means: str) -> Record:
        if values.get("test_case_id") is None and values.get("result_id") is not None:
            values["test_case_id"] = self.result_ids.get(values["result_id"])
        problem = self._score_problem(where, values, empty_means)
        kept = _finite(values)
        for name in ("score", "threshold"):  # the text as written stays in score_raw / raw_text
            if not _is_number(kept.get(name)):
                kept[name] = None
        if problem is None:
            record = _sized(number, kept, where)
            if record.reject_reason is None:
                return record
            problem = record.reject_reason
            kept = {k: kept.get(k) for k in ("record", "where", "test_case_id", "metric_name")}
        # a rejected score keeps its test case and metric: the case does not pass
        return Record(number, kept, raw, problem)

    def _score_problem(self, where: str, values: dict[str, Any], empty_means: str) -> str | None:
        case_id = values.get("test_case_id")
        metric = values.get("metric_name")
        result_id = values.get("result_id")
        if not metric:
            return f"invalid_score: {where}: metric_name is empty"
        if case_id is None:
            return f"invalid_score: {where}: test_case_id is empty"
        if case_id not in self.cases:
            if case_id in self.rejected_cases:
                return (
                    f"rejected_test_case: {where}: its test case {case_id!r} was rejected"
                    f" ({self.rejected_cases[case_id]})"
                )
            return f"unknown_test_case: {where}: test case {case_id!r} has no test case record"
        if result_id is not None and self.result_ids.get(result_id, case_id) != case_id:
            return (
                f"invalid_score: {where}: result id {result_id} is test case"
                f" {self.result_ids[result_id]!r}, not {case_id!r}"
            )
        key = (case_id, metric)
        if key in self.scores:
            return f"duplicate_score: {where}: test case {case_id!r} metric {metric!r} again (also {self.scores[key]})"
        self.scores[key] = where
        problem = _score_problem(values.get("score"), empty_means) or _number_problem(
            "threshold", values.get("threshold")
        )
        return f"invalid_score: {where}: {problem}" if problem else None


# ---------------------------------------------------------------- the workbook


def _open_workbook(path: Path) -> Any:
    from openpyxl import load_workbook

    try:
        return load_workbook(path, read_only=True, data_only=True)
    except zipfile.BadZipFile as err:
        raise RejectedFile(f"not a readable xlsx workbook: {err}") from None
    except Exception as err:  # openpyxl's own errors, a missing part (KeyError), bad XML
        raise RejectedFile(f"not a readable xlsx workbook: {type(err).__name__}: {err}") from None


def _sheet_rows(workbook: Any, sheet: str) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """(row number, cells) of a sheet, from its first row (the header)."""
    try:
        yield from enumerate(workbook[sheet].iter_rows(values_only=True), start=1)
    except Exception as err:  # a part of the zip that cannot be read, cut short
        raise RejectedFile(f"not a readable xlsx workbook: sheet {sheet}: {type(err).__name__}: {err}") from None


def _header(sheet: str, cells: tuple[Any, ...] | None, required: tuple[str, ...]) -> list[str]:
    names = ["" if c is None else str(c).strip() for c in (cells or ())]
    repeated = sorted({n for n in names if n and names.count(n) > 1})
    if repeated:
        raise RejectedFile(f"sheet {sheet}: repeated column(s): {', '.join(repeated)}")
    missing = [c for c in required if c not in names]
    if missing:
        shown = ", ".join(n for n in names if n) or "none"
        raise RejectedFile(f"sheet {sheet}: missing column(s): {', '.join(missing)} (it has: {shown})")
    return names


def _rows(workbook: Any, sheet: str, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number, {column: cell}) of a sheet's data rows, blank rows left out."""
    rows = _sheet_rows(workbook, sheet)
    first = next(rows, None)
    names = _header(sheet, first[1] if first else None, required)
    for number, cells in rows:
        if all(c is None or (isinstance(c, str) and not c.strip()) for c in cells):
            continue
        yield number, {name: cell for name, cell in zip(names, cells) if name}


def _one_row(workbook: Any, sheet: str) -> dict[str, Any]:
    found = list(_rows(workbook, sheet, REQUIRED_SHEETS[sheet]))
    if len(found) != 1:
        raise RejectedFile(f"sheet {sheet}: {len(found)} data rows, expected one (the run)")
    return found[0][1]


def _read_workbook(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    workbook = _open_workbook(path)
    try:
        missing = [name for name in REQUIRED_SHEETS if name not in workbook.sheetnames]
        if missing:
            raise RejectedFile(
                f"not {WHAT}: no sheet(s) {', '.join(missing)} (it has: {', '.join(workbook.sheetnames) or 'none'})"
            )
        header = _workbook_header(workbook)
    except BaseException:
        workbook.close()
        raise

    def records() -> Iterator[Record]:
        checks = _Checks()
        number = 0
        try:
            for row, cells in _rows(workbook, "TestCases", REQUIRED_SHEETS["TestCases"]):
                number += 1
                yield _case_row(number, row, cells, checks)
            for row, cells in _rows(workbook, "MetricScores", REQUIRED_SHEETS["MetricScores"]):
                number += 1
                yield _score_row(number, row, cells, checks)
        finally:
            workbook.close()

    return header, records()


def _workbook_header(workbook: Any) -> dict[str, Any]:
    summary = _one_row(workbook, "Summary")
    run = _one_row(workbook, "Run")
    if _id_text(summary.get("run_id")) != _id_text(run.get("run_id")):
        raise RejectedFile(
            f"sheets Summary and Run name different runs: {summary.get('run_id')!r} and {run.get('run_id')!r}"
        )
    thresholds = _parse_json_cell("Run", "thresholds", run.get("thresholds"), {})
    if not isinstance(thresholds, dict):
        raise RejectedFile(f"sheet Run: thresholds is {thresholds!r}, not an object of metric: threshold")
    metrics = _parse_json_cell("Run", "metrics_evaluated", run.get("metrics_evaluated"), [])
    header: dict[str, Any] = {
        "format": "xlsx",
        "run": {name: run.get(name) for name in RUN_FIELDS},
        "metrics_evaluated": metrics if isinstance(metrics, list) else None,
        "thresholds": thresholds,
        "summary": {name: summary.get(name) for name in SUMMARY_FIELDS},
        "metrics_summary": None,
    }
    header["run"]["run_id"] = _id_text(run.get("run_id"))
    if "MetricsSummary" in workbook.sheetnames:
        reported: dict[str, Any] = {}
        for _, cells in _rows(workbook, "MetricsSummary", OPTIONAL_SHEETS["MetricsSummary"]):
            name = _id_text(cells.get("metric_name"))
            if name:
                reported[name] = {k: cells.get(k) for k in ("avg_score", "pass_rate", "samples")}
        header["metrics_summary"] = reported
    return _finite(header)


def _raw(cells: dict[str, Any]) -> str:
    return clipped(json.dumps(_finite(cells), ensure_ascii=False))


def _case_row(number: int, row: int, cells: dict[str, Any], checks: _Checks) -> Record:
    where = f"TestCases row {row}"
    values: dict[str, Any] = {
        "record": "test_case",
        "where": where,
        "result_id": _id_text(cells.get("id")),
        "test_case_id": _id_text(cells.get("test_case_id")),
        "tokens_used": cells.get("tokens_used"),
        "latency_ms": cells.get("latency_ms"),
        "cost_usd": cells.get("cost_usd"),
        "all_passed": None,  # the workbook has no verdict per test case
    }
    for name in CASE_TEXT_FIELDS:
        values[name] = _json_text(_finite(cells.get(name)))
    return checks.case(number, where, values, _raw(cells))


def _score_row(number: int, row: int, cells: dict[str, Any], checks: _Checks) -> Record:
    where = f"MetricScores row {row}"
    score = cells.get("score")
    values: dict[str, Any] = {
        "record": "score",
        "where": where,
        "result_id": _id_text(cells.get("result_id")),
        "test_case_id": _id_text(cells.get("test_case_id")),
        "metric_name": _id_text(cells.get("metric_name")),
        "score": score,
        "score_raw": None if score is None else str(_finite(score)),
        "threshold": cells.get("threshold"),
        "reason": _json_text(_finite(cells.get("reason"))),
        "passed": None,  # the workbook has no verdict per score
    }
    return checks.score(number, where, values, _raw(cells), "EvalVault writes a NaN score as an empty cell")


# ---------------------------------------------------------------- the JSON export


def _read_json(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    handle = path.open("r", encoding="utf-8-sig", errors="strict")
    stream = JsonStream(handle, WHAT)
    try:
        if stream.peek() != "{":
            raise RejectedFile(f"not {WHAT}: the document is not an object")
    except UnicodeDecodeError as err:
        handle.close()
        raise RejectedFile(f"not UTF-8: {err}") from None
    except RejectedFile:
        handle.close()
        raise
    header: dict[str, Any] = {"format": "json"}

    def records() -> Iterator[Record]:
        top: dict[str, Any] = {}
        checks = _Checks()
        number = 0
        found_results = False
        try:
            with handle:
                for key in stream.members():
                    if key != "results" or stream.peek() != "[":
                        top[key] = stream.value()
                        continue
                    found_results = True
                    for index, result in enumerate(stream.elements()):
                        for record in _result_records(number, index, result, checks):
                            number = record.line_number
                            yield record
        except UnicodeDecodeError as err:
            raise RejectedFile(f"not UTF-8: {err}") from None
        if not found_results:
            raise RejectedFile(f"not {WHAT}: no 'results' list (evalvault export <run_id> -o file.json writes one)")
        if not _id_text(top.get("run_id")):
            raise RejectedFile(f"not {WHAT}: no run_id")
        header.update(_json_header(top))

    return header, records()


def _json_header(top: dict[str, Any]) -> dict[str, Any]:
    thresholds = top.get("thresholds")
    metrics = top.get("metrics_evaluated")
    if thresholds is not None and not isinstance(thresholds, dict):
        raise RejectedFile(f"thresholds is {thresholds!r}, not an object of metric: threshold")
    metrics = metrics if isinstance(metrics, list) else []
    reported = {
        str(name): {"avg_score": top.get(f"avg_{name}"), "pass_rate": None, "samples": None}
        for name in metrics
        if f"avg_{name}" in top
    }
    run = {name: top.get(name) for name in RUN_FIELDS}
    run["run_id"] = _id_text(top.get("run_id"))
    return _finite(
        {
            "run": run,
            "metrics_evaluated": metrics,
            "thresholds": thresholds or {},
            "summary": {name: top.get(name) for name in SUMMARY_FIELDS},
            "metrics_summary": reported,
        }
    )


def _result_records(number: int, index: int, result: Any, checks: _Checks) -> Iterator[Record]:
    where = f"results[{index}]"
    number += 1
    raw = clipped(json.dumps(_finite(result), ensure_ascii=False))
    if not isinstance(result, dict):
        yield Record(number, None, raw, f"invalid_result: {where} is not an object")
        return
    metrics = result.get("metrics")
    values = {
        "record": "test_case",
        "where": where,
        "result_id": None,
        "test_case_id": _id_text(result.get("test_case_id")),
        "tokens_used": result.get("tokens_used"),
        "latency_ms": result.get("latency_ms"),
        "cost_usd": result.get("cost_usd"),
        "all_passed": result.get("all_passed") if isinstance(result.get("all_passed"), bool) else None,
        **dict.fromkeys(CASE_TEXT_FIELDS),
    }
    if metrics is not None and not isinstance(metrics, list):
        yield Record(number, _finite(values), raw, f"invalid_result: {where}: metrics is not a list")
        return
    yield checks.case(number, where, values, raw)
    for position, metric in enumerate(metrics or []):
        number += 1
        yield _metric_record(number, f"{where}.metrics[{position}]", values["test_case_id"], metric, checks)


def _metric_record(number: int, where: str, case_id: str | None, metric: Any, checks: _Checks) -> Record:
    raw = clipped(json.dumps(_finite(metric), ensure_ascii=False))
    if not isinstance(metric, dict):
        values = {"record": "score", "where": where, "test_case_id": case_id, "metric_name": None}
        return Record(number, values, raw, f"invalid_score: {where} is not an object")
    score = metric.get("score")
    values: dict[str, Any] = {
        "record": "score",
        "where": where,
        "result_id": None,
        "test_case_id": case_id,
        "metric_name": _id_text(metric.get("name")),
        "score": score,
        "score_raw": None if score is None else json.dumps(_finite(score), ensure_ascii=False).strip('"'),
        "threshold": metric.get("threshold"),
        "reason": _json_text(_finite(metric.get("reason"))),
        "passed": metric.get("passed") if isinstance(metric.get("passed"), bool) else None,
    }
    return checks.score(number, where, values, raw, "no score in the export")
