"""Reading an OpenAI Evals record file: its spec, its final report and its
events, one record each.

``oaieval <completion_fn> <eval> --record_path run.jsonl`` writes, through
``evals.record.LocalRecorder``, a JSON Lines file:

- line 1, ``{"spec": RunSpec}``: ``completion_fns``, ``eval_name``,
  ``base_eval``, ``split``, ``run_config``, ``created_by``, ``run_id``,
  ``created_at`` (``evals/base.py``);
- one line per event (``evals.record.Event``): ``{run_id, event_id,
  sample_id, type, data, created_by, created_at}``, ``type`` one of
  ``match``, ``metrics``, ``sampling``, ``embedding``, ``cond_logp``,
  ``pick_option``, ``function_call``, ``raw_sample``, ``error``,
  ``extra`` or an eval's own;
- ``{"final_report": {...}, "run_id": ...}`` when the run finished: what
  the eval's ``run`` returned (``accuracy``, ``f1_score``, ...), with the
  sampling events' token usage added (``usage_*``).

The recorder buffers events and writes them in batches (100 events and 10
seconds apart) and at exit, so the final report is not necessarily the
last line: in a short run it comes right after the spec, the events after
it. A run that crashed has no final report (its events are still written
at exit).

The file is read twice, line by line, never whole: a first pass finds the
final report and which ``metrics`` keys hold numbers, the second yields one
record per event line (``line_number`` is the file's line). The spec and
the final report are the header. A file that cannot be used as a whole (no
spec line, a spec without its run id, two runs in one file, a final report
of another run) raises RejectedFile; an event that cannot be used (not
JSON, not an event, a repeated ``event_id``, a ``correct`` that is not true
or false, a NaN or a text among a metric's numbers) is a rejected record
with the reason.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_eval.ingest.common import RejectedFile, clipped, is_integer, json_loads
from agent_eval.ingest.records import Record

# the RunSpec fields without which a file is no run (evals/base.py)
SPEC_REQUIRED = ("run_id", "eval_name", "completion_fns")
EVENT_FIELDS = ("run_id", "event_id", "sample_id", "type", "data")
# the event types whose data scores a sample (the warehouse's scorers)
SCORING_TYPES = ("match", "metrics")


def read_record(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    """The run's header (its spec and final report) and its event records."""
    scan = _scan(path)
    header: dict[str, Any] = {
        "format": "record_jsonl",
        "spec": scan.spec,
        "final_report": scan.final_report,
        "final_report_line": scan.final_report_line,
        "run_id": scan.spec.get("run_id"),
    }
    return header, _records(path, scan)


# ---------------------------------------------------------------- pass 1


@dataclass
class _Scan:
    spec: dict[str, Any]
    final_report: dict[str, Any] | None = None
    final_report_line: int | None = None
    # metrics key -> the first line where it holds a number
    numeric_keys: dict[str, int] = field(default_factory=dict)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """The file's non-blank lines with their numbers (1-based)."""
    try:
        with path.open("r", encoding="utf-8", errors="strict") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield number, line
    except UnicodeDecodeError as err:
        raise RejectedFile(f"not UTF-8: {err}") from None


def _parse(line: str) -> Any:
    """A line's JSON (Python's reader takes the bare NaN and Infinity that
    Python's writer emits), or the ValueError."""
    try:
        return json_loads(line)
    except ValueError as err:
        return err


def _scan(path: Path) -> _Scan:
    lines = _lines(path)
    first = next(lines, None)
    if first is None:
        raise RejectedFile("empty file: no spec line")
    number, text = first
    document = _parse(text)
    if not isinstance(document, dict) or not isinstance(document.get("spec"), dict):
        what = "not JSON" if isinstance(document, ValueError) else "not a spec line"
        raise RejectedFile(
            f'not an OpenAI Evals record file: line {number} is {what} (oaieval writes {{"spec": {{...}}}} first)'
        )
    spec = document["spec"]
    for name in SPEC_REQUIRED:
        if spec.get(name) in (None, "", []):
            raise RejectedFile(f"not an OpenAI Evals record file: the spec (line {number}) has no {name}")
    if not isinstance(spec["run_id"], str) or not isinstance(spec["eval_name"], str):
        raise RejectedFile(f"unknown spec structure (line {number}): run_id and eval_name are not text")
    fns = spec["completion_fns"]
    if not isinstance(fns, list) or not all(isinstance(fn, str) for fn in fns):
        raise RejectedFile(f"unknown spec structure (line {number}): completion_fns is not a list of names")
    scan = _Scan(spec=_finite(spec))
    for number, text in lines:
        document = _parse(text)
        if not isinstance(document, dict):
            continue  # a rejected record (pass 2 says why)
        if "spec" in document:
            raise RejectedFile(f"line {number} is a second spec line: two runs in one record file")
        if "final_report" in document:
            _final_report(scan, number, document)
        elif document.get("type") == "metrics" and isinstance(document.get("data"), dict):
            for key, value in document["data"].items():
                if _number(value) and key not in scan.numeric_keys:
                    scan.numeric_keys[key] = number
    return scan


def _final_report(scan: _Scan, number: int, document: dict[str, Any]) -> None:
    if scan.final_report_line is not None:
        raise RejectedFile(f"line {number} is a second final report (the first is line {scan.final_report_line})")
    report = document["final_report"]
    if not isinstance(report, dict):
        raise RejectedFile(f"unknown final report structure (line {number}): not an object")
    run_id = document.get("run_id")
    if run_id is not None and run_id != scan.spec["run_id"]:
        raise RejectedFile(
            f"the final report (line {number}) is of run {run_id!r}, the spec of run {scan.spec['run_id']!r}"
        )
    scan.final_report = _finite(report)
    scan.final_report_line = number


# ---------------------------------------------------------------- pass 2


def _records(path: Path, scan: _Scan) -> Iterator[Record]:
    seen: dict[int, int] = {}
    lines = _lines(path)
    next(lines)  # the spec
    for number, text in lines:
        document = _parse(text)
        if isinstance(document, dict) and "final_report" in document:
            continue  # the header
        yield _event_record(number, text, document, scan, seen)


def _event_record(number: int, text: str, event: Any, scan: _Scan, seen: dict[int, int]) -> Record:
    where = f"line {number}"

    def rejected(reason: str) -> Record:
        return Record(number, None, clipped(text.rstrip("\r\n")), reason)

    if isinstance(event, ValueError):
        return rejected(f"invalid_json: {where}: {event}")
    if not isinstance(event, dict):
        return rejected(f"invalid_event: {where} is not an object")
    missing = [name for name in EVENT_FIELDS if name not in event]
    if missing:
        return rejected(f"invalid_event: {where} is neither an event nor the final report (no {', '.join(missing)})")
    if event["run_id"] != scan.spec["run_id"]:
        return rejected(f"invalid_event: {where} is of run {event['run_id']!r}, the spec of {scan.spec['run_id']!r}")
    event_id = event["event_id"]
    if not is_integer(event_id):
        return rejected(f"invalid_event: {where}: event_id {event_id!r} is not a 64-bit integer")
    if event_id in seen:
        return rejected(f"duplicate_event: {where}: event_id {event_id} again (also line {seen[event_id]})")
    seen[event_id] = number
    sample_id = event["sample_id"]
    if sample_id is None or isinstance(sample_id, (dict, list, bool)):
        return rejected(f"invalid_event: {where}: sample_id {sample_id!r} is not an id")
    kind = event["type"]
    if not isinstance(kind, str) or not kind:
        return rejected(f"invalid_event: {where}: type {kind!r} is not a name")
    data = event["data"]
    if kind in SCORING_TYPES and not isinstance(data, dict):
        return rejected(f"invalid_event: {where}: the data of a {kind} event is not an object")
    problem = _scoring_problem(kind, data, scan) if kind in SCORING_TYPES else None
    if problem:
        return rejected(f"invalid_value: {where}: {problem}")
    values = {
        "event_id": event_id,
        "sample_id": str(sample_id),
        "type": kind,
        "created_at": event.get("created_at"),
        "created_by": event.get("created_by"),
        "data": _finite(data),
    }
    return Record(number, values)


def _scoring_problem(kind: str, data: dict[str, Any], scan: _Scan) -> str | None:
    """Why a match or metrics event cannot be scored, or None."""
    if kind == "match":
        correct = data.get("correct")
        if not isinstance(correct, bool):
            shown = "missing" if "correct" not in data else repr(correct)
            return f"match correct is {shown}, not true or false"
        return None
    for key, value in data.items():
        if isinstance(value, float) and not math.isfinite(value):
            return f"metrics {key!r} is {value!r}, not a finite number"
        if key in scan.numeric_keys and value is not None and not _number(value):
            return f"metrics {key!r} is {_shown(value)}, not a number (a number on line {scan.numeric_keys[key]})"
    return None


# ---------------------------------------------------------------- values


def _number(value: Any) -> bool:
    """A finite number or a boolean (evals means booleans as 1 and 0)."""
    if isinstance(value, bool):
        return True
    return isinstance(value, (int, float)) and math.isfinite(value)


def _shown(value: Any) -> str:
    text = json.dumps(_finite(value), ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinity as the text "NaN" / "Infinity"
    / "-Infinity" (JSON has no such number)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
