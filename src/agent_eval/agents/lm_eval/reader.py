"""Reading lm-evaluation-harness outputs: a results file and its samples files.

``lm-eval run ... --output_path DIR --log_samples`` writes, in
``DIR/<model_name_sanitized>/`` (lm_eval/loggers/evaluation_tracker.py):

- ``results_<datetime>.json`` (``save_results_aggregated``; with
  ``--output_path x.json``: ``x_<datetime>.json``): the run's figures per
  task, ``results[task]["<metric>,<filter>"]`` and
  ``["<metric>_stderr,<filter>"]``, computed by lm-eval (lm_eval/evaluator.py,
  lm_eval/evaluator_utils.py), and ``groups``, ``group_subtasks``,
  ``configs``, ``versions``, ``n-shot``, ``higher_is_better``,
  ``n-samples``, ``config`` (model, model_args, ...), ``lm_eval_version``,
  ``git_hash``, ``date``, ``task_hashes``, ``model_source``,
  ``model_name``, ``model_name_sanitized``,
  ``total_evaluation_time_seconds`` (lm_eval/result_schema.py);
- ``samples_<task>_<datetime>.jsonl`` (``save_results_samples``), one per
  task, with the same ``<datetime>``: one line per (document, filter):
  ``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``,
  ``filtered_resps``, ``filter``, ``metrics`` (the names of the metric
  keys) and one key per metric with the document's value.

Each file is one drop kind with its own reader. A results file's records
are its tasks (one record each: the task's figures as lm-eval reported
them, and what its config says of each metric's aggregation); its groups
and the run's fields are the header. A samples file's records are its
lines, streamed. How the two pair (same folder, same ``<datetime>``, the
samples file's task) is decided in SQL over the current versions of both
(intermediate/lm_eval): a file is read once, when its bytes are new, so a
verdict that depends on another file is not made here.

A file that cannot be used is a RejectedFile (a results file that is not
JSON, has no ``results`` object, is of another lm-eval line than 0.4, or
whose figures are not keyed ``<metric>,<filter>``); a record that cannot be
used is a rejected record with the reason: a task whose figure is NaN or
not a number, a line that is not JSON, lacks ``doc_id`` or ``filter``,
repeats a (``doc_id``, ``filter``), or has a metric value that is NaN,
infinite, text or null.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_eval.ingest.common import RejectedFile, clipped, json_loads, max_record_bytes, too_large
from agent_eval.ingest.records import Record

# lm-eval's date_id: datetime.now().isoformat() with ':' written as '-'
DATETIME = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
RESULTS_NAME = re.compile(rf"(?P<stem>.+)_(?P<datetime>{DATETIME})\.json")
SAMPLES_NAME = re.compile(rf"samples_(?P<task>.+)_(?P<datetime>{DATETIME})\.jsonl")

# the lm-eval line whose files this reads: 0.4 keys figures "<metric>,<filter>"
KNOWN_LINE = "0.4"
# the keys of a results entry that are no figure (lm_eval/result_schema.py _TaskMetrics)
ENTRY_FIELDS = ("name", "alias", "sample_len", "sample_count")
# lm-eval writes "N/A" for a stderr it did not compute (bootstrap_iters 0, one document)
NOT_COMPUTED = "N/A"
# model_args keys lm-eval takes the model's name from, in its order
# (GeneralConfigTracker._get_model_name)
NAME_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")


# ---------------------------------------------------------------- helpers


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinity as the string "NaN" / "Infinity"
    / "-Infinity" (JSON has no such number)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(_finite(value), ensure_ascii=False)


def _args_text(model_args: Any) -> str | None:
    """model_args as lm-eval's command line takes them: ``k=v,k=v`` (a dict
    in its order), or the string as written."""
    if isinstance(model_args, dict):
        return ",".join(f"{k}={_text(v) if not isinstance(v, int | float) else v}" for k, v in model_args.items())
    if isinstance(model_args, str):
        return model_args or None
    return None


def _named_model(model_args: Any) -> bool:
    """Whether lm-eval took model_name from model_args (else it made up a
    random id: GeneralConfigTracker.log_experiment_args)."""
    if isinstance(model_args, dict):
        return any(key in model_args for key in NAME_KEYS)
    if isinstance(model_args, str):
        return any(f"{key}=" in model_args for key in NAME_KEYS)
    return False


# ---------------------------------------------------------------- results


def read_results(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    """The run's header and one record per task of a results file."""
    size = path.stat().st_size
    if size > max_record_bytes():
        # an aggregate of a few KB a task: read whole, as the record limit allows
        raise RejectedFile(too_large(size))
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise RejectedFile(f"not UTF-8: {err}") from None
    try:
        document = json_loads(text)
    except ValueError as err:
        raise RejectedFile(f"not valid JSON: {err}") from None
    if not isinstance(document, dict):
        raise RejectedFile("not an lm-eval results file: the document is not an object")
    results = document.get("results")
    if not isinstance(results, dict):
        raise RejectedFile(
            "not an lm-eval results file: no 'results' object (lm-eval --output_path writes "
            "results_<datetime>.json with the figures of each task)"
        )
    version = _check_version(document.get("lm_eval_version"))
    _check_structure(results)
    groups = _group_names(document)
    header = _run_header(path, document, version, results, groups)
    tasks = [name for name in results if name not in groups]

    def records() -> Iterator[Record]:
        for number, task in enumerate(tasks, start=1):
            yield _task_record(number, task, results[task], document)

    return header, records()


def _check_version(version: Any) -> str | None:
    """The lm-eval release that wrote the file (``lm_eval_version``, written
    since 0.4.9): another line than 0.4 is rejected; a file without it (0.4.0
    to 0.4.8) is read by its structure."""
    if version is None:
        return None
    text = str(version)
    found = re.match(r"(\d+)\.(\d+)", text)
    if found is None:
        return None  # lm-eval writes the reason it could not tell (no package metadata)
    if f"{found[1]}.{found[2]}" != KNOWN_LINE:
        raise RejectedFile(f"unknown lm-eval version {text!r} (read: lm-eval {KNOWN_LINE}.x results files)")
    return text


def _check_structure(results: dict[str, Any]) -> None:
    for name, entry in results.items():
        if not isinstance(entry, dict):
            raise RejectedFile(f"unknown structure: results[{name!r}] is not an object")
    keyed = [key for entry in results.values() for key in entry if key not in ENTRY_FIELDS]
    if keyed and not any("," in key for key in keyed):
        raise RejectedFile(
            f"unknown structure: the figures are not keyed '<metric>,<filter>' (found {keyed[0]!r}; "
            f"lm-eval {KNOWN_LINE} writes 'acc,none')"
        )


def _group_names(document: dict[str, Any]) -> set[str]:
    """The groups of the run: lm-eval aggregates them from their subtasks
    (``groups``; ``group_subtasks`` lists each group's children)."""
    names = set(document.get("groups") or {}) if isinstance(document.get("groups"), dict) else set()
    subtasks = document.get("group_subtasks")
    if isinstance(subtasks, dict):
        names |= {name for name, children in subtasks.items() if children}
    return names


def _run_header(
    path: Path, document: dict[str, Any], version: str | None, results: dict[str, Any], groups: set[str]
) -> dict[str, Any]:
    config = document.get("config") if isinstance(document.get("config"), dict) else {}
    named = RESULTS_NAME.fullmatch(path.name)
    model_args = config.get("model_args")
    elapsed = document.get("total_evaluation_time_seconds")
    try:
        elapsed_sec = float(elapsed) if elapsed is not None else None
    except (TypeError, ValueError):
        elapsed_sec = None
    return _finite(
        {
            "format": "lm_eval_results",
            "datetime": named["datetime"] if named else None,
            "lm_eval_version": version,
            "model": config.get("model"),
            "model_args": _args_text(model_args),
            "model_name": document.get("model_name") if _named_model(model_args) else None,
            "model_name_sanitized": document.get("model_name_sanitized"),
            "model_source": document.get("model_source"),
            "git_hash": document.get("git_hash"),
            "date": document.get("date") if _is_number(document.get("date")) else None,
            "start_time": document.get("start_time") if _is_number(document.get("start_time")) else None,
            "end_time": document.get("end_time") if _is_number(document.get("end_time")) else None,
            "total_evaluation_time_sec": elapsed_sec
            if elapsed_sec is not None and math.isfinite(elapsed_sec)
            else None,
            "config": {k: v for k, v in config.items() if k != "model_args"},
            "system_instruction_sha": document.get("system_instruction_sha"),
            "chat_template_sha": document.get("chat_template_sha"),
            "fewshot_as_multiturn": document.get("fewshot_as_multiturn"),
            "tasks": [name for name in results if name not in groups],
            "groups": {name: results.get(name) for name in sorted(groups) if name in results},
            "group_subtasks": document.get("group_subtasks"),
        }
    )


def _aggregations(config: Any) -> dict[str, str | None]:
    """Each metric's aggregation as the task's config declares it
    (``metric_list[].aggregation``: a name such as mean or bleu, or the text
    lm-eval wrote for a function); absent: the metric's registered default
    (the SQL side knows lm-eval's registry, seed lm_eval_metric_aggregations)."""
    found: dict[str, str | None] = {}
    metric_list = config.get("metric_list") if isinstance(config, dict) else None
    for entry in metric_list if isinstance(metric_list, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("metric"), str):
            aggregation = entry.get("aggregation")
            found[entry["metric"]] = (
                aggregation if aggregation is None or isinstance(aggregation, str) else str(aggregation)
            )
    return found


def _task_record(number: int, task: str, entry: dict[str, Any], document: dict[str, Any]) -> Record:
    where = f"results[{task!r}]"

    def rejected(reason: str) -> Record:
        # the task's name rides along: its samples file is told why it has no set
        raw = clipped(json.dumps({task: _finite(entry)}, ensure_ascii=False))
        return Record(number, {"task": task}, raw, reason)

    figures: dict[str, dict[str, Any]] = {}
    for key, value in entry.items():
        if key in ENTRY_FIELDS or "," not in key:
            continue
        metric, _, filter_name = key.partition(",")
        is_stderr = metric.endswith("_stderr")
        base = metric.removesuffix("_stderr") if is_stderr else metric
        if not (_is_number(value) or value == NOT_COMPUTED or (value is None and is_stderr)):
            shown = "NaN" if isinstance(value, float) and math.isnan(value) else repr(_finite(value))
            return rejected(f"invalid_metric: {where}[{key!r}] is {shown}, not a number")
        figure = figures.setdefault(
            f"{base},{filter_name}",
            {"scorer": f"{base},{filter_name}", "metric": base, "filter": filter_name, "value": None, "stderr": None},
        )
        figure["stderr" if is_stderr else "value"] = value if _is_number(value) else None

    def of(key: str) -> Any:
        table = document.get(key)
        return table.get(task) if isinstance(table, dict) else None

    configs = of("configs")
    n_samples = of("n-samples")
    n_samples = n_samples if isinstance(n_samples, dict) else {}
    higher = of("higher_is_better")
    values = {
        "task": task,
        "alias": entry.get("alias"),
        "sample_len": entry.get("sample_len") if _is_number(entry.get("sample_len")) else None,
        "scorers": list(figures.values()),
        "aggregations": _aggregations(configs),
        "higher_is_better": higher if isinstance(higher, dict) else {},
        "n_samples_original": n_samples.get("original"),
        "n_samples_effective": n_samples.get("effective"),
        "n_shot": of("n-shot"),
        "task_version": _text(of("versions")),
        "task_hash": of("task_hashes"),
        "output_type": configs.get("output_type") if isinstance(configs, dict) else None,
        "repeats": configs.get("repeats") if isinstance(configs, dict) else None,
        "dataset_path": configs.get("dataset_path") if isinstance(configs, dict) else None,
    }
    return Record(number, _finite(values))


# ---------------------------------------------------------------- samples


def read_samples(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    """A samples file's lines, one record each, streamed."""
    named = SAMPLES_NAME.fullmatch(path.name)
    header = {
        "format": "lm_eval_samples",
        "task": named["task"] if named else None,
        "datetime": named["datetime"] if named else None,
    }

    def records() -> Iterator[Record]:
        seen: dict[tuple[Any, str], int] = {}
        limit = max_record_bytes()
        with path.open("r", encoding="utf-8", errors="strict", newline="") as handle:
            try:
                for number, line in enumerate(handle, start=1):
                    stripped = line.strip()
                    if not stripped:
                        continue
                    size = len(stripped.encode()) if len(stripped) * 4 > limit else 0
                    if size > limit:
                        yield Record(number, None, clipped(stripped), too_large(size))
                        continue
                    yield _sample_record(number, stripped, seen)
            except UnicodeDecodeError as err:
                raise RejectedFile(f"not UTF-8: {err}") from None

    return header, records()


def _metric_value(value: Any) -> str | None:
    """Why a sample's metric value cannot be used, or None. A number (or a
    boolean, which lm-eval's mean counts as 1 / 0) is a value; a list or an
    object is the item of a corpus metric (bleu's [reference, prediction],
    perplexity's pairs), aggregated by lm-eval over the corpus; NaN, an
    infinity, text or null is none."""
    if isinstance(value, bool) or _is_number(value) or isinstance(value, list | dict):
        return None
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else "infinite"
    return f"{_finite(value)!r}, not a number"


def _sample_record(number: int, line: str, seen: dict[tuple[Any, str], int]) -> Record:
    where = f"line {number}"
    try:
        sample = json_loads(line)
    except ValueError as err:
        return Record(number, None, clipped(line), f"invalid_json: {where}: {err}")
    if not isinstance(sample, dict):
        return Record(number, None, clipped(line), f"invalid_json: {where} is not a JSON object")

    def rejected(reason: str) -> Record:
        return Record(number, None, clipped(line), reason)

    doc_id = sample.get("doc_id")
    if not isinstance(doc_id, int) or isinstance(doc_id, bool):
        return rejected(f"invalid_sample: {where}: doc_id is {_finite(doc_id)!r}, not an integer")
    filter_name = sample.get("filter")
    if not isinstance(filter_name, str):
        return rejected(f"invalid_sample: {where}: no filter (lm-eval 0.4.7 and later write the filter of each line)")
    key = (doc_id, filter_name)
    if key in seen:
        return rejected(
            f"duplicate_sample: {where} is doc_id {doc_id} filter {filter_name!r} again (also line {seen[key]})"
        )
    seen[key] = number
    names = sample.get("metrics")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        return rejected(f"invalid_sample: {where}: 'metrics' is not a list of metric names")
    metrics: dict[str, Any] = {}
    for name in names:
        if name not in sample:
            return rejected(f"invalid_metric: {where}: metric {name!r} is listed and has no value")
        problem = _metric_value(sample[name])
        if problem is not None:
            return rejected(f"invalid_metric: {where}: {name} is {problem}")
        value = sample[name]
        metrics[name] = float(value) if isinstance(value, bool) else value
    arguments = sample.get("arguments") if isinstance(sample.get("arguments"), dict) else {}
    requests = [a for a in arguments.values() if isinstance(a, dict)]
    first = requests[0] if requests else {}
    values = {
        "doc_id": doc_id,
        "filter": filter_name,
        "metrics": metrics,
        "target": _text(sample.get("target")),
        "input": _text(first.get("arg_0")),
        # a loglikelihood request's arg_1 is its continuation (a choice); a
        # generation's, its generation arguments
        "continuations": [_text(a.get("arg_1")) for a in requests],
        "resps": _finite(sample.get("resps")),
        "filtered_resps": _finite(sample.get("filtered_resps")),
        "doc": _finite(sample.get("doc")),
        "doc_hash": sample.get("doc_hash"),
        "prompt_hash": sample.get("prompt_hash"),
        "target_hash": sample.get("target_hash"),
    }
    return Record(number, _finite(values))
