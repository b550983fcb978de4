"""Reading a promptfoo output: its header and its results, one record each.

``promptfoo eval -o out.json`` writes the ``OutputFile`` of promptfoo's
``src/types``: ``{evalId, results: {version, timestamp, prompts, results,
stats}, config, shareableUrl, metadata}`` (``results.version`` 3; version
2 has a ``table`` whose ``head.prompts`` carry the per-column metrics).
``-o out.jsonl`` writes one result per line and nothing else. A result is
one (prompt, provider, test, repeat): ``promptIdx`` names its column (a
prompt x provider pair, ``results.prompts[promptIdx]``), ``testIdx`` its
row (each repeat has its own).

A ``.jsonl`` output is read by DuckDB (agents.promptfoo.duckdb_jsonl),
which hands back to this reader each line, or the whole file, it would
read otherwise than Python; this reader is the reference it agrees with.
The JSON file is read as a stream (agent_eval.ingest.json_stream): the
results array one element at a time (promptfoo's own users run out of memory loading large outputs
whole), everything else as it comes. The header (the columns' metrics,
the stats, the metadata) is completed when the records have been read:
``stats`` and ``metadata`` follow the results in the file.

Each result becomes a record of the fields the warehouse scores: column,
row, provider, prompt, the test's identity (a hash of its vars and
asserts, so the repeats of one test are one sample), success, score,
output, error, the assertions' verdicts, latency, cost and tokens (the
model's and the graders' apart). A result that cannot be used (not an
object, a second result for the same column and row, a score that is not
a finite number) is a rejected record with the reason.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from agent_eval.drop_kinds import DropKind
from agent_eval.ingest.common import RejectedFile, clipped, json_loads
from agent_eval.ingest.json_stream import JsonStream
from agent_eval.ingest.records import Record

KNOWN_VERSIONS = (2, 3)


def read_output(path: Path, kind: DropKind) -> tuple[dict[str, Any], Iterator[Record] | Any]:
    """The output's header (completed once the records are read) and its
    result records (for a ``.jsonl``, in the landed form of ``kind`` when
    DuckDB read it)."""
    if path.suffix == ".jsonl":
        return _read_jsonl(path, kind)
    return _read_json(path)


# ---------------------------------------------------------------- -o x.jsonl


def _read_jsonl(path: Path, kind: DropKind) -> tuple[dict[str, Any], Iterator[Record] | Any]:
    header: dict[str, Any] = {"format": "jsonl", "version": None, "columns": {}}
    from agent_eval.agents.promptfoo.duckdb_jsonl import read_by_duckdb
    from agent_eval.ingest.parse import records_table

    # DuckDB reads what it reads as this reader does; the rest is read here
    landed = read_by_duckdb(path, lambda lines: records_table(_line_records(lines, header), kind), identity_key)
    if landed is not None:
        return header, landed

    def records() -> Iterator[Record]:
        with path.open("r", encoding="utf-8", errors="strict") as handle:
            try:
                yield from _line_records(enumerate(handle, start=1), header)
            except UnicodeDecodeError as err:
                raise RejectedFile(f"not UTF-8: {err}") from None

    return header, records()


def _line_records(lines: Iterable[tuple[int, str]], header: dict[str, Any]) -> Iterator[Record]:
    """The records of numbered lines (a blank line has none)."""
    seen: dict[tuple[int, int], int] = {}
    for number, line in lines:
        if not line.strip():
            continue
        try:
            result = json_loads(line)
        except ValueError as err:
            yield Record(number, None, clipped(line.rstrip("\n")), f"invalid_json: line {number}: {err}")
            continue
        yield _result_record(number, f"line {number}", result, seen, header)


# ---------------------------------------------------------------- -o x.json


def _read_json(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    handle = path.open("r", encoding="utf-8", errors="strict")
    stream = JsonStream(handle, "a promptfoo output")
    header: dict[str, Any] = {"format": "json", "version": None, "columns": {}}
    try:
        if stream.peek() != "{":
            raise RejectedFile("not a promptfoo output: the document is not an object")
    except UnicodeDecodeError as err:
        handle.close()
        raise RejectedFile(f"not UTF-8: {err}") from None
    except RejectedFile:
        handle.close()
        raise

    def records() -> Iterator[Record]:
        seen: dict[tuple[int, int], int] = {}
        number = 0
        found_results = False
        try:
            with handle:
                for key in stream.members():
                    if key != "results" or stream.peek() != "{":
                        _top_level(header, key, stream.value())
                        continue
                    found_results = True
                    for inner in stream.members():
                        if inner == "results" and stream.peek() == "[":
                            _check_version(header)
                            for result in stream.elements():
                                number += 1
                                yield _result_record(number, f"results[{number - 1}]", result, seen, header)
                        else:
                            _results_member(header, inner, stream.value())
        except UnicodeDecodeError as err:
            raise RejectedFile(f"not UTF-8: {err}") from None
        if not found_results:
            raise RejectedFile("not a promptfoo output: no 'results' object (promptfoo eval -o file.json)")
        _check_version(header)
        _column_metrics(header)

    return header, records()


def _check_version(header: dict[str, Any]) -> None:
    version = header.get("version")
    if version not in KNOWN_VERSIONS:
        known = ", ".join(map(str, KNOWN_VERSIONS))
        if version is None:
            raise RejectedFile(
                f"not a promptfoo output this warehouse reads: results.version is missing (read: {known})"
            )
        raise RejectedFile(f"unknown promptfoo output version {version!r} (read: {known})")


def _top_level(header: dict[str, Any], key: str, value: Any) -> None:
    if key == "evalId":
        header["eval_id"] = value
    elif key == "config" and isinstance(value, dict):
        header["description"] = value.get("description")
    elif key == "metadata" and isinstance(value, dict):
        header["tool_version"] = value.get("promptfooVersion")
        header["created"] = value.get("evaluationCreatedAt") or header.get("created")


def _results_member(header: dict[str, Any], key: str, value: Any) -> None:
    if key == "version":
        header["version"] = value
    elif key == "timestamp":
        header.setdefault("created", value)
    elif key == "prompts" and isinstance(value, list):
        header["prompts"] = value
    elif key == "table" and isinstance(value, dict):
        head = value.get("head") or {}
        if isinstance(head, dict) and isinstance(head.get("prompts"), list):
            header["prompts"] = head["prompts"]
    elif key == "stats" and isinstance(value, dict):
        header["stats"] = _finite(value)


def _column_metrics(header: dict[str, Any]) -> None:
    """Each column's figures as promptfoo reports them (results.prompts of
    version 3, table.head.prompts of version 2), by column index."""
    prompts = header.pop("prompts", None) or []
    # version 2 results have no promptIdx: their columns were numbered as
    # they appeared (_column_of); its table lists them by provider and prompt
    numbered = header.pop("_column_names", None)
    columns = header["columns"]
    for index, prompt in enumerate(prompts):
        if not isinstance(prompt, dict):
            continue
        if numbered is not None:
            key = f"{_label(prompt.get('provider'))}\x00{prompt.get('label') or prompt.get('display') or prompt.get('raw')}"
            if key not in numbered:
                continue
            index = numbered[key]
        entry = columns.setdefault(str(index), {})
        entry.update(
            {
                "label": _prompt_name(prompt),
                "raw": prompt.get("raw"),
                "provider": prompt.get("provider"),
                "metrics": _finite(prompt.get("metrics")),
            }
        )


# ---------------------------------------------------------------- the fields


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinity as the string "NaN" / "Infinity"
    / "-Infinity" (JSON has no such number)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


# a record's values as the loader lands them (json.dumps(values,
# ensure_ascii=False)), and a test's identity as its hash reads it; both
# refuse NaN and infinity (_finite_json)
_RECORD_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
_KEY_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":"))


def _finite_json(value: Any, encoder: json.JSONEncoder = _RECORD_JSON) -> tuple[str, Any]:
    """``value`` as JSON text with every NaN or infinity written as a
    string (``_finite``), and the value that text stands for. Nearly every
    value has none: the encoder, which refuses them, finds one as it
    writes, and only then is the value walked."""
    try:
        return encoder.encode(value), value
    except ValueError:
        value = _finite(value)
        return encoder.encode(value), value


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(_finite(value), ensure_ascii=False)


def _label(value: Any) -> str | None:
    """A provider's or prompt's name: its label, else its id (a provider may
    be a bare id string)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return value.get("label") or value.get("id")
    return None


def test_key(test_case: Any, variables: Any, grading: Any = None) -> str:
    """The identity of a test across its repeats (each repeat has its own
    testIdx): a hash of its vars and asserts. A version 2 result has no
    testCase: its asserts are its assertions' (componentResults)."""
    case = test_case if isinstance(test_case, dict) else {}
    asserts = case.get("assert")
    if asserts is None and isinstance(grading, dict):
        asserts = [c.get("assertion") for c in grading.get("componentResults") or [] if isinstance(c, dict)] or None
    return identity_key(case.get("vars", variables), asserts)


def identity_key(variables: Any, asserts: Any) -> str:
    """The hash of a test's vars and asserts (``test_key``)."""
    text, _ = _finite_json({"vars": variables, "assert": asserts}, _KEY_JSON)
    # a lone surrogate (a \ud800 escape) has no UTF-8: the record that
    # holds it is rejected when it lands (ingest.parse)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _tokens(usage: Any) -> dict[str, Any]:
    usage = usage if isinstance(usage, dict) else {}
    return {k: usage.get(k) for k in ("prompt", "completion", "total", "cached")}


def _components(grading: Any) -> list[dict[str, Any]] | str:
    """The assertions' verdicts (gradingResult.componentResults), or why
    they cannot be used."""
    if not isinstance(grading, dict):
        return []
    components = grading.get("componentResults")
    if components is None:
        return []
    if not isinstance(components, list):
        return "componentResults is not a list"
    found = []
    for index, component in enumerate(components):
        if not isinstance(component, dict):
            return f"componentResults[{index}] is not an object"
        assertion = component.get("assertion") if isinstance(component.get("assertion"), dict) else {}
        score = component.get("score")
        if score is not None and not _number(score):
            return f"componentResults[{index}] score {score!r} is not a finite number"
        found.append(
            {
                "type": assertion.get("type"),
                "metric": assertion.get("metric"),
                "value": _text(assertion.get("value")),
                "pass": component.get("pass"),
                "score": score,
                "reason": component.get("reason"),
            }
        )
    return found


def _result_record(
    number: int, where: str, result: Any, seen: dict[tuple[int, int], int], header: dict[str, Any]
) -> Record:
    def rejected(reason: str) -> Record:
        return Record(number, None, clipped(json.dumps(_finite(result), ensure_ascii=False)), reason)

    if not isinstance(result, dict):
        return rejected(f"invalid_result: {where} is not an object")
    provider = result.get("provider")
    prompt = result.get("prompt") if isinstance(result.get("prompt"), dict) else {}
    column = result.get("promptIdx")
    row = result.get("testIdx")
    if not isinstance(column, int) or isinstance(column, bool):
        column = _column_of(header, _label(provider), _prompt_name(prompt))
    if not isinstance(row, int) or isinstance(row, bool):
        row = None
    if row is not None:
        key = (column, row)
        if key in seen:
            return rejected(
                f"duplicate_result: {where} is promptIdx {column} testIdx {row} again (also record {seen[key]})"
            )
        seen[key] = number
    score = result.get("score")
    if score is not None and not _number(score):
        return rejected(f"invalid_score: {where}: score {score!r} is not a finite number")
    if not isinstance(result.get("success"), bool):
        return rejected(f"invalid_result: {where}: success is {result.get('success')!r}, not true or false")
    components = _components(result.get("gradingResult"))
    if isinstance(components, str):
        return rejected(f"invalid_score: {where}: {components}")
    cost = result.get("cost")
    if cost is not None and not _number(cost):
        return rejected(f"invalid_result: {where}: cost {cost!r} is not a finite number")
    response = result.get("response") if isinstance(result.get("response"), dict) else {}
    grading = result.get("gradingResult") if isinstance(result.get("gradingResult"), dict) else {}
    usage = result.get("tokenUsage") if isinstance(result.get("tokenUsage"), dict) else None
    test_case = result.get("testCase")
    variables = result.get("vars")
    values = {
        "column": column,
        "row": row,
        "provider": _label(provider),
        "provider_id": provider.get("id") if isinstance(provider, dict) else provider,
        "prompt_label": _prompt_name(prompt) or _column_label(header, column),
        "input": prompt.get("raw"),
        "test_key": test_key(test_case, variables, result.get("gradingResult")),
        "description": test_case.get("description") if isinstance(test_case, dict) else None,
        "vars": variables if variables is not None else (test_case if isinstance(test_case, dict) else {}).get("vars"),
        "success": result["success"],
        "score": score,
        "failure_reason": result.get("failureReason"),
        "error": result.get("error"),
        "output": _text(response.get("output")),
        "response_error": response.get("error"),
        "latency_ms": result.get("latencyMs"),
        "cost": cost,
        # the model's tokens (the result's, else its response's) and the
        # graders' (the assertions', else the grading result's) apart
        "tokens": _tokens(usage if usage is not None else response.get("tokenUsage")),
        "grader_tokens": _tokens(usage.get("assertions") if usage is not None else grading.get("tokensUsed")),
        "named_scores": result.get("namedScores"),
        "components": components,
    }
    # written here, once: the loader lands this text (records_table)
    text, values = _finite_json(values)
    return Record(number, values, values_json=text)


def _prompt_name(prompt: dict[str, Any]) -> str | None:
    """A prompt's name: its label (version 3), else its template (version
    2's display), else its text."""
    return prompt.get("label") or prompt.get("display") or prompt.get("raw")


def _column_of(header: dict[str, Any], provider: str | None, prompt: str | None) -> int:
    """A result without promptIdx (version 2): the column of its provider
    and prompt, numbered as they first appear."""
    names = header.setdefault("_column_names", {})
    key = f"{provider}\x00{prompt}"
    if key not in names:
        names[key] = len(names)
    return names[key]


def _column_label(header: dict[str, Any], column: int) -> str | None:
    entry = header.get("columns", {}).get(str(column))
    return entry.get("label") if entry else None
