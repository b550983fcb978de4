"""Reading an Every Eval Ever aggregate and its instance file.

EvalEval's converters (Inspect AI, lm-evaluation-harness, HELM) and its
datastore write, per evaluation, ``data/<benchmark>/<developer>/<model>/``
``<uuid>.json`` (the aggregate, ``eval.schema.json``: source metadata, the
evaluation library, the model, ``evaluation_results`` with each metric's
configuration and score details) and, when the aggregate names it in
``detailed_evaluation_results``, ``<uuid>_samples.jsonl`` beside it (one
instance line per sample and result, ``instance_level_eval.schema.json``).
Both schemas are the vendored ones (``agent_eval/schemas/every_eval_ever/``,
version 0.3.0).

The aggregate is read whole (it holds figures, not samples; the record
size limit caps it) and checked against its schema; the instance file is
streamed line by line, each line checked against its schema. The header is
the aggregate's fields the warehouse uses, with every evaluation result
named (scorer, metric) and its reported figures; the records are the
instance lines, each linked to the result it scores.

Whole-file faults (a RejectedFile): the aggregate is not UTF-8 JSON, holds
a non-finite number, has no or an unknown ``schema_version``, does not
conform to its schema (the first violation's path and message), repeats a
result; its instance file is missing, does not match the checksum or the
row count the aggregate gives. Record faults (a rejected record, ``<code>:
line <n>: <why>``): a line that is not JSON or not an object, a score that
is not a finite number, a line its schema refuses, a line of another
evaluation or schema version, an ``evaluation_result_id`` the aggregate
does not have, a repeated (scorer, sample, epoch).

As EvalEval's own validator (pydantic models generated from the schemas)
reads them, an optional field written as ``null`` is absent: its converters
write ``"evaluation_result_id": null``.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from agent_eval.ingest.common import RejectedFile, clipped, json_loads, max_record_bytes, too_large
from agent_eval.ingest.records import LONE_SURROGATE, Record, parsed_lone_surrogate

KNOWN_VERSIONS = ("0.3.0",)
SCHEMA_FOLDER = "schemas/every_eval_ever"
AGGREGATE_SCHEMA = "eval.schema.json"
INSTANCE_SCHEMA = "instance_level_eval.schema.json"
CHUNK = 1 << 20


class _NonFinite(ValueError):
    """A NaN or infinity in a JSON text (JSON has no such number)."""


def _no_constant(token: str) -> float:
    raise _NonFinite(f"non-finite number {token} (JSON has none)")


# ---------------------------------------------------------------- schemas


@cache
def _validator(name: str) -> jsonschema.Draft7Validator:
    # the package's copy, which the export checks its documents against too
    schema = json.loads(resources.files("agent_eval").joinpath(SCHEMA_FOLDER, name).read_text("utf-8"))
    return jsonschema.Draft7Validator(schema)


def _without_nulls(value: Any, dropped: list[str], where: str = "") -> Any:
    """``value`` without the object members that are null (recorded in
    ``dropped``): an absent optional field, as EvalEval's validator reads it."""
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            at = f"{where}.{key}" if where else key
            if item is None:
                dropped.append(at)
            else:
                kept[key] = _without_nulls(item, dropped, at)
        return kept
    if isinstance(value, list):
        return [_without_nulls(item, dropped, f"{where}[{i}]") for i, item in enumerate(value)]
    return value


def _path(error: ValidationError) -> str:
    parts = ""
    for part in error.absolute_path:
        parts += f"[{part}]" if isinstance(part, int) else (f".{part}" if parts else str(part))
    return parts or "(document)"


def schema_violation(document: Any, schema: str) -> str | None:
    """Where and why ``document`` does not conform to the vendored schema
    (the most relevant violation, jsonschema's best_match), or None."""
    dropped: list[str] = []
    stripped = _without_nulls(document, dropped)
    error = jsonschema.exceptions.best_match(_validator(schema).iter_errors(stripped))
    if error is None:
        return None
    where = _path(error)
    if error.validator == "required" and isinstance(error.instance, dict):
        # a required field written as null: say so, not that it is missing
        for name in error.validator_value:
            at = f"{where}.{name}" if where != "(document)" else name
            if name not in error.instance and at in dropped:
                return f"at {at}: a required field is null"
    return f"at {where}: {error.message}"


# ---------------------------------------------------------------- aggregate


def read_aggregate(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    """The aggregate's header (its instance counts completed once the
    records are read) and its instance records."""
    size = path.stat().st_size
    if size > max_record_bytes():
        raise RejectedFile(too_large(size))
    document = _json_document(path.read_bytes())
    version = document.get("schema_version")
    known = ", ".join(KNOWN_VERSIONS)
    if version is None:
        raise RejectedFile(f"not an Every Eval Ever aggregate: schema_version is missing (read: {known})")
    if version not in KNOWN_VERSIONS:
        raise RejectedFile(f"unknown Every Eval Ever schema_version {version!r} (read: {known})")
    problem = schema_violation(document, AGGREGATE_SCHEMA)
    if problem:
        raise RejectedFile(f"does not conform to {AGGREGATE_SCHEMA} {version}: {problem}")
    results = _results(document["evaluation_results"])
    header = _header(document, results)
    detail = document.get("detailed_evaluation_results")
    if not detail:
        return header, iter(())
    instances = path.with_name(PurePosixPath(detail["file_path"]).name)
    if not instances.is_file():
        raise RejectedFile(
            f"missing instance file {instances.name}: detailed_evaluation_results.file_path names "
            f"{detail['file_path']}, looked for beside the aggregate"
        )
    _check_checksum(instances, detail)
    header["instances"] |= {"file": instances.name}
    return header, _instance_records(instances, document, results, header)


def _json_document(data: bytes) -> dict[str, Any]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise RejectedFile(f"not UTF-8: {err}") from None
    try:
        document = json_loads(text, parse_constant=_no_constant)
    except _NonFinite as err:
        raise RejectedFile(f"not valid JSON: {err}") from None
    except json.JSONDecodeError as err:
        raise RejectedFile(f"not valid JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    if not isinstance(document, dict):
        raise RejectedFile("not an Every Eval Ever aggregate: the document is not an object")
    if parsed_lone_surrogate(text, document):
        raise RejectedFile(f"not valid JSON: {LONE_SURROGATE.removeprefix('invalid_json: ')}")
    return document


def _metric_name(config: dict[str, Any]) -> str:
    """A result's metric: its display name, else its id, else its
    description (lm-eval's and Inspect's converters write the metric
    there), else ``score``."""
    for key in ("metric_name", "metric_id", "evaluation_description"):
        if config.get(key):
            return str(config[key])
    return "score"


def _number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None


def _bound(value: Any) -> float | str | None:
    """min_score / max_score: a number, or the schema's "Infinity" strings."""
    return value if isinstance(value, str) else _number(value)


def _results(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each evaluation result named: scorer = its evaluation_result_id
    (the schema's join key), else its evaluation_name; metric = its metric's
    name. A second result of the same scorer and metric, or of the same
    evaluation_result_id, is a fault of the file."""
    named: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], int] = {}
    seen_ids: dict[str, int] = {}
    for index, entry in enumerate(entries):
        config = entry.get("metric_config") or {}
        details = entry.get("score_details") or {}
        uncertainty = details.get("uncertainty") or {}
        error = uncertainty.get("standard_error") or {}
        interval = uncertainty.get("confidence_interval") or {}
        result_id = entry.get("evaluation_result_id")
        if result_id is not None:
            if result_id in seen_ids:
                raise RejectedFile(
                    f"evaluation_results[{index}] repeats evaluation_result_id {result_id!r} "
                    f"of evaluation_results[{seen_ids[result_id]}]"
                )
            seen_ids[result_id] = index
        scorer = result_id if result_id is not None else entry["evaluation_name"]
        metric = _metric_name(config)
        if (scorer, metric) in seen:
            raise RejectedFile(
                f"evaluation_results[{index}] repeats scorer {scorer!r} metric {metric!r} "
                f"of evaluation_results[{seen[(scorer, metric)]}]"
            )
        seen[(scorer, metric)] = index
        source = entry.get("source_data") or {}
        named.append(
            {
                "index": index,
                "scorer": scorer,
                "metric": metric,
                "evaluation_result_id": result_id,
                "evaluation_name": entry["evaluation_name"],
                "dataset_name": source.get("dataset_name"),
                "source_type": source.get("source_type"),
                "metric_id": config.get("metric_id"),
                "metric_kind": config.get("metric_kind"),
                "metric_unit": config.get("metric_unit"),
                "evaluation_description": config.get("evaluation_description"),
                "lower_is_better": config.get("lower_is_better"),
                "score_type": config.get("score_type"),
                "min_score": _bound(config.get("min_score")),
                "max_score": _bound(config.get("max_score")),
                "score": _number(details.get("score")),
                "standard_error": _number(error.get("value")),
                "standard_error_method": error.get("method"),
                "ci_lower": _number(interval.get("lower")),
                "ci_upper": _number(interval.get("upper")),
                "confidence_level": _number(interval.get("confidence_level")),
                "ci_method": interval.get("method"),
                "standard_deviation": _number(uncertainty.get("standard_deviation")),
                "num_samples": uncertainty.get("num_samples"),
                "evaluation_timestamp": entry.get("evaluation_timestamp"),
            }
        )
    return named


def _header(document: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    source = document.get("source_metadata") or {}
    library = document.get("eval_library") or {}
    model = document.get("model_info") or {}
    detail = document.get("detailed_evaluation_results") or {}
    # the benchmark: where EvalEval's CLI files the aggregate,
    # data/<first result's dataset_name>/...; else the evaluation id's
    # first part (its documented eval_name/model_id/timestamp form)
    benchmark = results[0]["dataset_name"] if results else None
    return {
        "schema_version": document["schema_version"],
        "evaluation_id": document["evaluation_id"],
        "benchmark": benchmark or document["evaluation_id"].split("/", 1)[0],
        "evaluation_timestamp": document.get("evaluation_timestamp"),
        "retrieved_timestamp": document.get("retrieved_timestamp"),
        "source_name": source.get("source_name"),
        "source_type": source.get("source_type"),
        "source_organization_name": source.get("source_organization_name"),
        "evaluator_relationship": source.get("evaluator_relationship"),
        "eval_library": library.get("name"),
        "eval_library_version": library.get("version"),
        "model_id": model.get("id"),
        "model_name": model.get("name"),
        "model_developer": model.get("developer"),
        "inference_platform": model.get("inference_platform"),
        "results": results,
        "instances": {
            "file_path": detail.get("file_path"),
            "checksum": detail.get("checksum"),
            "hash_algorithm": detail.get("hash_algorithm"),
            "total_rows": detail.get("total_rows"),
        }
        if detail
        else None,
    }


def _check_checksum(instances: Path, detail: dict[str, Any]) -> None:
    checksum = detail.get("checksum")
    if not checksum:
        return
    algorithm = detail.get("hash_algorithm") or "sha256"
    digest = hashlib.new(algorithm)
    with instances.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    if digest.hexdigest().lower() != str(checksum).lower():
        raise RejectedFile(
            f"instance file {instances.name} does not match the aggregate's checksum "
            f"({algorithm} {checksum}, the file's is {digest.hexdigest()}): changed or truncated"
        )


# ---------------------------------------------------------------- instances


def _link(line: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any] | str | None:
    """The result an instance line scores: the one its evaluation_result_id
    names (none: a fault, returned as the reason); else the only result of
    its evaluation_name; else, when the aggregate has one result, that one;
    else none (the line keeps its evaluation_name as scorer)."""
    result_id = line.get("evaluation_result_id")
    if result_id is not None:
        for result in results:
            if result["evaluation_result_id"] == result_id:
                return result
        return f"evaluation_result_id {result_id!r} is not a result of the aggregate"
    same_name = [r for r in results if r["evaluation_name"] == line["evaluation_name"]]
    if len(same_name) == 1:
        return same_name[0]
    if len(results) == 1:
        return results[0]
    return None


def _epoch(metadata: Any) -> tuple[str | None, int | None]:
    """Which repeat of its sample a line is: metadata.epoch (Inspect's
    converter writes it), else metadata.round (this warehouse's export of
    its own agents' items); as written, and as a number when it is one
    (the item mart numbers other labels in order)."""
    label = None
    if isinstance(metadata, dict):
        label = metadata.get("epoch") or metadata.get("round")
    if label is None:
        return None, 1
    try:
        number = int(label)
    except ValueError:
        return label, None
    return label, number if number >= 1 else None


def _output_text(line: dict[str, Any]) -> str | None:
    """The model's answer: output.raw (single turn; several joined), else
    the last assistant message's content (multi-turn, agentic)."""
    output = line.get("output")
    if isinstance(output, dict) and output.get("raw"):
        return "\n".join(output["raw"])
    for message in reversed(line.get("messages") or []):
        if str(message.get("role", "")).lower() == "assistant" and message.get("content") is not None:
            return message["content"]
    return None


def _answer(line: dict[str, Any]) -> str | None:
    """The extracted answer: the terminal attribution's value (else the last
    one's)."""
    attributions = line.get("answer_attribution") or []
    terminal = [a for a in attributions if a.get("is_terminal")]
    chosen = (terminal or attributions)[-1:] if attributions else []
    return chosen[0].get("extracted_value") if chosen else None


def _instance_values(
    line: dict[str, Any], result: dict[str, Any] | None, epoch: tuple[str | None, int | None]
) -> dict[str, Any]:
    evaluation = line["evaluation"]
    usage = line.get("token_usage") or {}
    performance = line.get("performance") or {}
    references = line["input"].get("reference") or []
    return {
        "sample_id": line["sample_id"],
        "epoch_label": epoch[0],
        "epoch": epoch[1],
        "scorer": result["scorer"] if result else (line.get("evaluation_result_id") or line["evaluation_name"]),
        "result_index": result["index"] if result else None,
        "evaluation_name": line["evaluation_name"],
        "evaluation_result_id": line.get("evaluation_result_id"),
        "sample_hash": line.get("sample_hash"),
        "interaction_type": line["interaction_type"],
        "input": line["input"]["raw"],
        "target": references[0]
        if len(references) == 1
        else (json.dumps(references, ensure_ascii=False) if references else None),
        "output": _output_text(line),
        "answer": _answer(line),
        "score": evaluation["score"],
        "is_correct": evaluation["is_correct"],
        "num_turns": evaluation.get("num_turns"),
        "tool_calls_count": evaluation.get("tool_calls_count"),
        "error": line.get("error"),
        "latency_ms": performance.get("latency_ms"),
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "total_tokens": usage.get("total_tokens"),
        "metadata": line.get("metadata"),
    }


def _instance_record(
    number: int,
    text: str,
    document: dict[str, Any],
    results: list[dict[str, Any]],
    seen: dict[tuple[str, str, str], int],
) -> Record:
    where = f"line {number}"

    def rejected(reason: str) -> Record:
        return Record(number, None, clipped(text.rstrip("\n")), reason)

    size = len(text.encode()) if len(text) * 4 > max_record_bytes() else 0
    if size > max_record_bytes():
        return rejected(too_large(size))
    try:
        line = json_loads(text, parse_constant=float)
    except json.JSONDecodeError as err:
        return rejected(f"invalid_json: {where}: {err.msg} at column {err.colno}")
    if not isinstance(line, dict):
        return rejected(f"invalid_json: {where}: not a JSON object")
    if parsed_lone_surrogate(text, line):
        return rejected(f"{LONE_SURROGATE.replace('invalid_json: ', f'invalid_json: {where}: ', 1)}")
    evaluation = line.get("evaluation")
    score = evaluation.get("score") if isinstance(evaluation, dict) else None
    if isinstance(evaluation, dict) and "score" in evaluation and _number(score) is None:
        what = "not a finite number" if isinstance(score, float) else "not a number"
        return rejected(f"invalid_score: {where}: evaluation.score {json.dumps(score)} is {what}")
    try:
        json.dumps(line, allow_nan=False)
    except ValueError:
        return rejected(f"invalid_json: {where}: a non-finite number (NaN or Infinity; JSON has none)")
    problem = schema_violation(line, INSTANCE_SCHEMA)
    if problem:
        return rejected(f"invalid_instance: {where}: does not conform to {INSTANCE_SCHEMA}: {problem}")
    if line["schema_version"] != document["schema_version"]:
        return rejected(
            f"invalid_instance: {where}: schema_version {line['schema_version']!r} "
            f"is not the aggregate's {document['schema_version']!r}"
        )
    if line["evaluation_id"] != document["evaluation_id"]:
        return rejected(
            f"foreign_instance: {where}: evaluation_id {line['evaluation_id']!r} "
            f"is not the aggregate's {document['evaluation_id']!r}"
        )
    result = _link(line, results)
    if isinstance(result, str):
        return rejected(f"unknown_result: {where}: {result}")
    epoch = _epoch(line.get("metadata"))
    values = _instance_values(line, result, epoch)
    key = (values["scorer"], line["sample_id"], epoch[0] or "1")
    if key in seen:
        return rejected(
            f"duplicate_instance: {where} repeats sample {line['sample_id']!r} epoch {epoch[0] or 1} "
            f"of scorer {values['scorer']!r} (line {seen[key]})"
        )
    seen[key] = number
    return Record(number, values)


def _instance_records(
    instances: Path, document: dict[str, Any], results: list[dict[str, Any]], header: dict[str, Any]
) -> Iterator[Record]:
    seen: dict[tuple[str, str, str], int] = {}
    n_rows = 0
    with instances.open("r", encoding="utf-8-sig", errors="strict", newline="") as handle:
        try:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                n_rows += 1
                yield _instance_record(number, text, document, results, seen)
        except UnicodeDecodeError as err:
            raise RejectedFile(f"instance file {instances.name} is not UTF-8: {err}") from None
    expected = header["instances"]["total_rows"]
    if expected is not None and expected != n_rows:
        raise RejectedFile(
            f"instance file {instances.name} has {n_rows} line(s), the aggregate's total_rows says {expected}: "
            "truncated or changed"
        )
    header["instances"]["n_rows"] = n_rows
