"""Every Eval Ever export: any set of any agent of the published file as
EvalEval's aggregate JSON and instance-level JSONL (schemas 0.3.0, vendored
under ``agent_eval/schemas/every_eval_ever/``; docs/every-eval-ever.md maps
every field).

Layout, as the Every Eval Ever datastore lays out its ``data/`` folder (so
the folder can be checked with EvalEval's validator or offered to the
datastore as it is)::

    <out>/data/<collection>/<developer>/<model>/<uuid>.json           aggregate
    <out>/data/<collection>/<developer>/<model>/<uuid>_samples.jsonl  instances

- ``<collection>`` is ``agent-eval__<evaluation name>``: the set's series for
  the warehouse's own agents, the task for an imported tool's run,
  namespaced by this source as the datastore asks of private collections;
- ``<developer>/<model>`` is the model id: ``local/<agent>`` for an agent of
  the registry, the model the log names (``provider/model``) for an
  imported tool;
- ``<uuid>`` is a version-4 UUID derived from the evaluation id (a hash,
  not a random draw): exporting a set again rewrites the same two files
  instead of adding a second record of the same evaluation. A set whose
  file was replaced keeps its set id, so its export is replaced too.

Sources (the published file, read-only; nothing is computed here):

- the aggregate of every set is ``marts.history_set_metrics``: one
  evaluation result per (set, metric) with the value, its n, the
  cluster-robust standard error and the 95% interval as that mart holds
  them; a metric without a value there is listed, not invented;
- an imported tool's set (a row in ``marts.eval_runs``) adds its model,
  tool and task, and its instances are ``marts.eval_item_scores`` (one line
  per sample, epoch and scorer, linked to that scorer's result);
- an agent of the registry with items (``has_items``) whose viewer part
  declares its item mart (``ITEM_TABLE``) gets one instance line per item
  of that mart: score = the item's ``accuracy_score`` (linked to the set's
  ``accuracy_score`` result), ``is_correct`` = the agent's pass verdict
  ``is_pass``;
- every other agent (the engagement runs, the insurance summary cases,
  which the registry marks as without items) gets the aggregate only.

An item the mart left unscored (a null value or verdict: an errored
sample) has no instance line, as it has no part in the metric; the
aggregate counts them in ``detailed_evaluation_results``.

Metric ranges are not in seed ``history_metrics``; ``METRIC_SCALES`` holds
what the agents' rules define (SPEC §3-§7). A metric it does not know (an
imported tool's scorer, whose values are whatever the scorer returns) is
written without bounds and marked ``bounds_status: unknown``, as EvalEval's
own lm-eval converter does.

Every document is checked against the vendored schema before anything of
its set is written.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from functools import cache
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path, PurePosixPath
from typing import Any

import duckdb
import jsonschema

from agent_eval import db, registry

# the vendored schemas, in the package (the importer of Every Eval Ever
# files, agent_eval.agents.every_eval_ever, reads the same two)
SCHEMA_FOLDER = "schemas/every_eval_ever"
AGGREGATE_SCHEMA = "eval.schema.json"
INSTANCE_SCHEMA = "instance_level_eval.schema.json"
SOURCE_NAME = "agent-eval warehouse"
LIBRARY_NAME = "agent-eval-warehouse"
COLLECTION_PREFIX = "agent-eval__"
# the model id of an agent of the registry: an in-house system on no model hub
LOCAL_DEVELOPER = "local"
UNKNOWN = "unknown"
# history_set_metrics' intervals are 95% (value ± t(0.975, clusters - 1) × SE)
CONFIDENCE_LEVEL = 0.95
STANDARD_ERROR_METHOD = "cluster_robust_cr1"
# the item score of an agent's item mart: the viewer's score series too
ITEM_SCORE = "accuracy_score"
ITEM_METADATA = (
    "line_number",
    "item_id",
    "run_id",
    "query_id",
    "round",
    "track",
    "category",
    "latency_class",
    "status",
    "status_reason",
    "label_source",
    "intent_label",
    "intent_score",
    "accuracy_score",
    "stability_score",
    "latency_sec",
    "latency_score",
    "n_checks",
    "n_checks_passed",
    "is_duplicate",
)
TOOL_ITEMS_SQL = """
    select line_number, sample_id, epoch, scorer, input, target, answer,
        completion, value_raw, value, is_pass, explanation, error,
        latency_sec, input_tokens, output_tokens, total_cost
    from marts.eval_item_scores
    where set_id = ?
    order by line_number, sample_id, epoch, scorer
"""
_UNSAFE_PATH_CHARS = re.compile(r'[<>:"\\|?*\x00-\x1f/]')
_RESERVED_NAMES = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}


@dataclass(frozen=True)
class Scale:
    """A metric's range as Every Eval Ever's metric_config states it."""

    min_score: float | str
    max_score: float | str
    unit: str | None = None
    score_type: str = "continuous"


RUBRIC_0_5 = Scale(0, 5, "points")
UNIT_0_1 = Scale(0, 1, "proportion")
# by metric name (seed history_metrics): resume and recruit scores are the
# 0-5 rubric (SPEC §3.3, §4.2; consistency 5 × a ratio, the weighted total
# weights summing to 1), summary metrics and engagement similarities are
# clamped to [0, 1] (SPEC §5, §6), seconds, tokens and cost are unbounded
# above, run_complete is 1 or 0 (SPEC §7)
METRIC_SCALES: dict[str, Scale] = {
    **dict.fromkeys(
        (
            "intent_score",
            "accuracy_score",
            "stability_score",
            "consistency_score",
            "latency_score",
            "latency_single_score",
            "latency_multi_score",
            "weighted_total",
        ),
        RUBRIC_0_5,
    ),
    **dict.fromkeys(
        (
            "summary_accuracy",
            "summary_risk_coverage",
            "summary_non_definitive",
            "summary_needs_followup",
            "overall_similarity",
            "like_count_similarity",
            "comment_count_similarity",
            "like_rate_similarity",
            "comment_rate_similarity",
        ),
        UNIT_0_1,
    ),
    "latency_sec": Scale(0, "Infinity", "seconds"),
    "tokens_per_sample": Scale(0, "Infinity", "tokens"),
    "total_cost": Scale(0, "Infinity"),
    "run_complete": Scale(0, 1, score_type="binary"),
}


class UnknownSet(ValueError):
    """A set id the published file does not hold."""


class InvalidDocument(RuntimeError):
    """A document that does not conform to the Every Eval Ever schema."""


@dataclass(frozen=True)
class Written:
    """What was written for one set."""

    set_id: str
    aggregate: Path
    instances: Path | None
    n_instances: int
    note: str

    def describe(self) -> str:
        if self.instances is None:
            return f"{self.set_id}: {self.aggregate} (aggregate only: {self.note})"
        return f"{self.set_id}: {self.aggregate} + {self.n_instances} instance(s) in {self.instances.name}"


@dataclass
class Instances:
    """A set's instance lines, and why there are none when there are none."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    n_unscored: int = 0
    note: str = ""


# ---------------------------------------------------------------- schemas


@cache
def load_schema(name: str) -> dict[str, Any]:
    text = resources.files("agent_eval").joinpath(SCHEMA_FOLDER, name).read_text(encoding="utf-8")
    return json.loads(text)


def schema_version() -> str:
    """The Every Eval Ever schema version the vendored schemas declare."""
    return str(load_schema(AGGREGATE_SCHEMA)["version"])


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = load_schema(name)
    return jsonschema.validators.validator_for(schema)(schema)


def check(document: dict[str, Any], name: str, where: str) -> None:
    """Raise InvalidDocument naming ``where`` when ``document`` does not
    conform to schema ``name``."""
    error = jsonschema.exceptions.best_match(_validator(name).iter_errors(document))
    if error is not None:
        raise InvalidDocument(
            f"{where} does not conform to Every Eval Ever {schema_version()} {name} "
            f"at {error.json_path}: {error.message}"
        )


# ---------------------------------------------------------------- export


def export_sets(
    published_db: Path, out_dir: Path, set_ids: list[str] | None = None, project_dir: Path | None = None
) -> list[Written]:
    """Write the aggregate (and instances) of ``set_ids`` (default every set
    of the published file) under ``out_dir``. Raises UnknownSet before
    writing anything when a set is not in the file, InvalidDocument when a
    document would not conform."""
    by_name = registry.by_name(project_dir)
    with duckdb.connect(str(published_db), read_only=True) as con:
        known = dict(db.fetch(con, "select distinct set_id, agent from marts.history_set_metrics order by set_id")[1])
        wanted = list(dict.fromkeys(set_ids)) if set_ids else list(known)
        missing = [s for s in wanted if s not in known]
        if missing:
            raise UnknownSet(
                f"no set {', '.join(map(repr, missing))} in {published_db} (marts.history_set_metrics); "
                "a set id is the set's path under the drops folder, <YYYY-MM-DD>/<file>"
            )
        context = _file_context(con)
        return [_export_set(con, set_id, by_name.get(known[set_id]), context, out_dir) for set_id in wanted]


def _file_context(con: db.Cursor) -> dict[str, Any]:
    relations = {
        f"{r[0]}.{r[1]}" for r in db.fetch(con, "select table_schema, table_name from information_schema.tables")[1]
    }
    published_at = db.scalar(con, "select max(published_at) from ops.published_tables")
    return {"relations": relations, "published_at": published_at, "warehouse_version": _package_version()}


def _export_set(
    con: db.Cursor, set_id: str, agent: registry.Agent | None, context: dict[str, Any], out_dir: Path
) -> Written:
    metrics = db.rows(
        con,
        "select * from marts.history_set_metrics where set_id = ? order by metric_order, metric",
        [set_id],
    )
    head = metrics[0]
    run = (
        db.one(con, "select * from marts.eval_runs where set_id = ?", [set_id])
        if "marts.eval_runs" in context["relations"]
        else None
    )
    scorers: set[str] = set()
    if run is not None and "marts.eval_item_scores" in context["relations"]:
        named = db.fetch(con, "select distinct scorer from marts.eval_item_scores where set_id = ?", [set_id])[1]
        scorers = {row[0] for row in named}
    identity = _identity(head, run)
    aggregate = _aggregate(head, metrics, run, scorers, identity, agent, context)
    result_ids = {r["evaluation_result_id"] for r in aggregate["evaluation_results"]}
    found = _instances(con, set_id, run, agent, context["relations"], identity, result_ids)

    folder = out_dir / "data" / identity["collection_dir"] / identity["developer_dir"] / identity["model_dir"]
    file_uuid = str(uuid.UUID(bytes=hashlib.sha256(identity["evaluation_id"].encode()).digest()[:16], version=4))
    repo_folder = PurePosixPath("data", identity["collection_dir"], identity["developer_dir"], identity["model_dir"])
    for index, line in enumerate(found.lines, start=1):
        check(line, INSTANCE_SCHEMA, f"set {set_id!r}: instance line {index}")
    samples = "".join(json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n" for line in found.lines).encode()
    if found.lines:
        aggregate["detailed_evaluation_results"] = {
            "format": "jsonl",
            "file_path": str(repo_folder / f"{file_uuid}_samples.jsonl"),
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(samples).hexdigest(),
            "total_rows": len(found.lines),
            "additional_details": {"n_items_unscored": str(found.n_unscored)},
        }
    check(aggregate, AGGREGATE_SCHEMA, f"set {set_id!r}: aggregate")
    folder.mkdir(parents=True, exist_ok=True)
    samples_path = folder / f"{file_uuid}_samples.jsonl" if found.lines else None
    if samples_path is not None:
        _write_atomic(samples_path, samples)
    aggregate_path = folder / f"{file_uuid}.json"
    _write_atomic(
        aggregate_path, (json.dumps(aggregate, ensure_ascii=False, allow_nan=False, indent=2) + "\n").encode()
    )
    return Written(set_id, aggregate_path, samples_path, len(found.lines), found.note)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


# ---------------------------------------------------------------- aggregate


def _identity(head: dict[str, Any], run: dict[str, Any] | None) -> dict[str, str]:
    """The evaluation name, model and evaluation id of a set, and the
    datastore folder they route it to."""
    if run is not None:
        evaluation_name = run.get("task") or head["series_id"]
        model_id = run.get("model") or f"{UNKNOWN}/{UNKNOWN}"
    else:
        evaluation_name = head["series_id"]
        model_id = f"{LOCAL_DEVELOPER}/{head['agent']}"
    developer, _, model = model_id.partition("/")
    if not model:
        developer, model = UNKNOWN, developer
    return {
        "evaluation_name": evaluation_name,
        "model_id": model_id,
        # the raw source identity (the set id, stable across exports and
        # unique in the warehouse), never the export's time
        "evaluation_id": f"{evaluation_name}/{model_id}/{head['set_id']}",
        "collection_dir": path_component(COLLECTION_PREFIX + evaluation_name),
        "developer_dir": path_component(developer),
        "model_dir": "_".join(path_component(part) for part in model.split("/")),
    }


def _aggregate(
    head: dict[str, Any],
    metrics: list[dict[str, Any]],
    run: dict[str, Any] | None,
    scorers: set[str],
    identity: dict[str, str],
    agent: registry.Agent | None,
    context: dict[str, Any],
) -> dict[str, Any]:
    agent_name = head["agent"]
    set_details = {
        "set_id": head["set_id"],
        "agent": agent_name,
        "agent_label": agent.label if agent else agent_name,
        "series_id": head["series_id"],
        "drop_date": head["drop_date"],
        "set_seq": head["set_seq"],
        "scoring_version": head["scoring_version"],
        "published_at": context["published_at"],
        "exported_by": f"{LIBRARY_NAME} {context['warehouse_version']}",
    }
    valued = [m for m in metrics if _finite(m["metric_value"])]
    without_value = [m["metric"] for m in metrics if not _finite(m["metric_value"])]
    if without_value:
        set_details["metrics_without_value"] = ",".join(without_value)
    source_data = {
        "dataset_name": identity["evaluation_name"],
        "source_type": "other",
        "additional_details": _strings({"set_id": head["set_id"], "series_id": head["series_id"]}),
    }
    if run is not None:
        library = {
            "name": run.get("tool") or UNKNOWN,
            "version": str(run.get("tool_version") or UNKNOWN),
            "additional_details": _strings(
                {"format_version": run.get("format_version"), "scored_by": set_details["exported_by"]}
            ),
        }
        set_details |= {
            "source_file": run.get("source_file"),
            "file_sha256": run.get("file_sha256"),
            "run_id": run.get("run_id"),
            "run_status": run.get("status"),
            "is_complete": run.get("is_complete"),
            "n_samples": run.get("n_samples"),
            "n_epochs": run.get("n_epochs"),
            "headline_scorer": run.get("headline_scorer"),
        }
        evaluated_at = run.get("created_at")
    else:
        library = {"name": LIBRARY_NAME, "version": context["warehouse_version"]}
        evaluated_at = head["drop_date"]
    document: dict[str, Any] = {"schema_version": schema_version(), "evaluation_id": identity["evaluation_id"]}
    if evaluated_at is not None:
        document["evaluation_timestamp"] = _epoch(evaluated_at)
    document |= {
        # when the published file was made: the same file exports the same bytes
        "retrieved_timestamp": _epoch(context["published_at"]),
        "source_metadata": {
            "source_name": SOURCE_NAME,
            # the warehouse holds the runs' per-item outputs, not reported numbers
            "source_type": "evaluation_run",
            "source_organization_name": UNKNOWN,
            # teams test their own agents; an imported tool's run tests
            # someone else's model
            "evaluator_relationship": "third_party" if run is not None else "first_party",
            "additional_details": _strings(set_details),
        },
        "eval_library": library,
        "model_info": _model_info(identity, agent_name, set_details["agent_label"], run),
        "evaluation_results": [_result(m, source_data, m["metric"] in scorers) for m in valued],
    }
    return document


def _model_info(
    identity: dict[str, str], agent_name: str, agent_label: str, run: dict[str, Any] | None
) -> dict[str, Any]:
    details = {"deployment_type": UNKNOWN, "model_availability": UNKNOWN}
    if run is None:
        return {
            "name": agent_name,
            "id": identity["model_id"],
            "additional_details": details | {"agent_label": agent_label},
        }
    info = {"name": identity["model_id"], "id": identity["model_id"]}
    if "/" in identity["model_id"]:
        # the provider the tool names the model by (openai/gpt-4o, mockllm/model)
        info["developer"] = identity["model_id"].split("/", 1)[0]
    return info | {"additional_details": details}


def _result(metric: dict[str, Any], source_data: dict[str, Any], is_scorer: bool) -> dict[str, Any]:
    name = metric["metric"]
    scale = None if is_scorer else METRIC_SCALES.get(name)
    config: dict[str, Any] = {
        "evaluation_description": name if metric["metric_label"] == name else f"{metric['metric_label']} ({name})",
        "metric_id": f"agent_eval.{metric['agent']}.{name}",
        "metric_name": name,
        "lower_is_better": metric["direction"] == "lower_is_better",
    }
    config_details = {"direction": metric["direction"], "min_delta": metric["min_delta"]}
    if scale is None:
        config_details["bounds_status"] = UNKNOWN
    else:
        config |= {"score_type": scale.score_type, "min_score": scale.min_score, "max_score": scale.max_score}
        if scale.unit:
            config["metric_unit"] = scale.unit
    config["additional_details"] = _strings(config_details)

    uncertainty: dict[str, Any] = {}
    if metric["n_obs"] is not None:
        uncertainty["num_samples"] = int(metric["n_obs"])
    if _finite(metric["std_error"]):
        uncertainty["standard_error"] = {"value": metric["std_error"], "method": STANDARD_ERROR_METHOD}
    if metric["ci_method"] != "none" and _finite(metric["ci_low"]) and _finite(metric["ci_high"]):
        uncertainty["confidence_interval"] = {
            "lower": metric["ci_low"],
            "upper": metric["ci_high"],
            "confidence_level": CONFIDENCE_LEVEL,
            "method": metric["ci_method"],
        }
    score: dict[str, Any] = {
        "score": metric["metric_value"],
        # n_obs observations in n_clusters queries (an imported tool's: samples)
        "details": _strings({"n_clusters": metric["n_clusters"], "clustered_by": "query"}),
    }
    if uncertainty:
        score["uncertainty"] = uncertainty
    return {
        "evaluation_result_id": name,
        "evaluation_name": source_data["dataset_name"],
        "source_data": source_data,
        "metric_config": config,
        "score_details": score,
    }


# ---------------------------------------------------------------- instances


def _instances(
    con: db.Cursor,
    set_id: str,
    run: dict[str, Any] | None,
    agent: registry.Agent | None,
    relations: set[str],
    identity: dict[str, str],
    result_ids: set[str],
) -> Instances:
    if run is not None:
        if "marts.eval_item_scores" not in relations:
            return Instances(note="the published file has no marts.eval_item_scores")
        return _lines(
            db.rows(con, TOOL_ITEMS_SQL, [set_id]), identity, result_ids, _tool_item, score="value", verdict="is_pass"
        )
    if agent is None:
        return Instances(note="the agent is not in this project's registry")
    if not agent.has_items:
        return Instances(note="the agent scores no items (registry has_items)")
    viewer = agent.part("viewer")
    spec = getattr(viewer, "ITEM_TABLE", None)
    if spec is None or spec.table not in relations:
        return Instances(note="the agent declares no item mart (viewer ITEM_TABLE)")
    order = "order by line_number" if _has_column(con, spec.table, "line_number") else ""
    items = db.rows(con, f"select * from {spec.table} where set_id = ? {order}", [set_id])
    return _lines(items, identity, result_ids, _agent_item, score=ITEM_SCORE, verdict="is_pass")


def _lines(
    items: list[dict[str, Any]],
    identity: dict[str, str],
    result_ids: set[str],
    shape: Callable[[dict[str, Any], dict[str, str], set[str]], dict[str, Any]],
    *,
    score: str,
    verdict: str,
) -> Instances:
    found = Instances()
    for item in items:
        if not _finite(item.get(score)) or item.get(verdict) is None:
            found.n_unscored += 1
            continue
        found.lines.append(shape(item, identity, result_ids))
    if not found.lines:
        found.note = f"no scored item ({found.n_unscored} unscored)"
    return found


def _instance(
    identity: dict[str, str],
    *,
    result_id: str | None,
    sample_id: Any,
    input_text: Any,
    reference: Any,
    output: Any,
    score: Any,
    is_correct: Any,
    error: Any,
    latency_sec: Any,
    metadata: dict[str, Any],
    attribution: list[dict[str, Any]],
) -> dict[str, Any]:
    raw = "" if input_text is None else str(input_text)
    references = [] if reference is None else [str(reference)]
    line: dict[str, Any] = {
        "schema_version": schema_version(),
        "evaluation_id": identity["evaluation_id"],
        "model_id": identity["model_id"],
        "evaluation_name": identity["evaluation_name"],
    }
    if result_id is not None:
        line["evaluation_result_id"] = result_id
    line |= {
        "sample_id": str(sample_id),
        # EvalEval's recipe, so hashes match across adapters
        "sample_hash": hashlib.sha256(
            json.dumps({"raw": raw, "reference": references}, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest(),
        # the marts hold the question and the final answer, not a transcript
        "interaction_type": "single_turn",
        "input": {"raw": raw, "reference": references},
        "output": {"raw": [] if output is None else [str(output)]},
        "messages": None,
        "answer_attribution": attribution,
        "evaluation": {"score": score, "is_correct": bool(is_correct)},
        "error": None if error is None else str(error),
        "metadata": _strings(metadata),
    }
    if _finite(latency_sec):
        line["performance"] = {"latency_ms": latency_sec * 1000}
    return line


def _tool_item(item: dict[str, Any], identity: dict[str, str], result_ids: set[str]) -> dict[str, Any]:
    attribution = []
    if item["answer"] is not None:
        attribution.append(
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": str(item["answer"]),
                "extraction_method": str(item["scorer"]),
                "is_terminal": True,
            }
        )
    return _instance(
        identity,
        result_id=item["scorer"] if item["scorer"] in result_ids else None,
        sample_id=item["sample_id"],
        input_text=item["input"],
        reference=item["target"],
        output=item["completion"],
        score=item["value"],
        is_correct=item["is_pass"],
        error=item["error"],
        latency_sec=item["latency_sec"],
        metadata={
            k: item[k]
            for k in (
                "line_number",
                "epoch",
                "scorer",
                "value_raw",
                "explanation",
                "input_tokens",
                "output_tokens",
                "total_cost",
            )
        },
        attribution=attribution,
    )


def _agent_item(item: dict[str, Any], identity: dict[str, str], result_ids: set[str]) -> dict[str, Any]:
    sample_id = next(
        (item[k] for k in ("query_id", "item_id", "line_number") if item.get(k) is not None), item.get("line_number")
    )
    return _instance(
        identity,
        result_id=ITEM_SCORE if ITEM_SCORE in result_ids else None,
        sample_id=sample_id,
        input_text=item.get("query_text"),
        reference=item.get("expected_result"),
        output=item.get("assistant_message"),
        score=item[ITEM_SCORE],
        is_correct=item["is_pass"],
        error=item.get("error_message"),
        latency_sec=item.get("latency_sec"),
        metadata={k: item[k] for k in ITEM_METADATA if k in item},
        # the agent's whole message is judged: nothing is extracted from it
        attribution=[],
    )


# ---------------------------------------------------------------- helpers


def path_component(text: str) -> str:
    """One portable folder name, by the datastore's rules: no ``/``,
    ``<>:"\\|?*`` or control characters, no trailing dot or space, no
    Windows device name, never ``data``."""
    name = _UNSAFE_PATH_CHARS.sub("_", text).rstrip(". ")
    if name in ("", ".", ".."):
        name = "_"
    if name.split(".", 1)[0].upper() in _RESERVED_NAMES or name == "data":
        name = f"_{name}"
    return name


def _has_column(con: db.Cursor, qualified: str, column: str) -> bool:
    schema, table = qualified.split(".", 1)
    return bool(
        db.scalar(
            con,
            "select count(*) from information_schema.columns "
            "where table_schema = ? and table_name = ? and column_name = ?",
            [schema, table, column],
        )
    )


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _strings(values: dict[str, Any]) -> dict[str, str]:
    """Every Eval Ever's key-value maps hold strings only; a null is left out."""
    return {key: _text(value) for key, value in values.items() if value is not None}


def _epoch(value: datetime | date) -> str:
    """Unix seconds, as Every Eval Ever writes timestamps. A date is its
    midnight UTC; a naive timestamp is UTC (the warehouse's convention)."""
    if not isinstance(value, datetime):
        value = datetime.combine(value, time(0), tzinfo=UTC)
    elif value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return str(int(value.timestamp()))


def _package_version() -> str:
    try:
        return version(LIBRARY_NAME)
    except PackageNotFoundError:
        return UNKNOWN
