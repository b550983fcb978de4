"""When a dbt model fails, which of tonight's deliveries fed it.

A model that breaks on one delivery (an out-of-memory error, a value no rule
expected) breaks every later night the same way until that delivery is
withdrawn, so the failure message must name it. dbt's run_results.json says
which models failed and why; its manifest.json says where each model lives
(an agent's folder, or shared); the manifest table of raw history says which
file versions this build loaded, and of which kind. The suspects of a failed
model are the versions loaded tonight of its agent's kinds (of every kind
for a shared model): one suspect is the delivery to withdraw.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from agent_eval import registry

MANIFEST_TABLE = "raw.raw_drop_files"


@dataclass(frozen=True)
class FailedModel:
    name: str
    agent: str | None  # None: a shared model
    message: str
    suspects: tuple[str, ...]  # source files loaded tonight that it reads


def _failed_models(target_dir: Path, since: datetime) -> list[tuple[str, str]]:
    """(unique_id, first line of the error) of every model that failed."""
    return [
        (r["unique_id"], _error_text(str(r.get("message") or ""))[:300])
        for r in _results(target_dir, since)
        if r.get("unique_id", "").startswith("model.") and str(r.get("status")).lower() == "error"
    ]


def _error_text(message: str) -> str:
    """dbt's message on one line, without its 'Runtime Error in model x (path)'
    preamble and DuckDB's list of possible solutions."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if any("Traceback (most recent call last)" in line for line in lines):
        return lines[-1]  # a Python model's exception: its last line says what and where
    text = " ".join(message.split())
    text = re.sub(r"^[A-Za-z ]*Error in (?:model|seed|test|operation) \S+ \([^)]*\) ", "", text)
    return text.split(" Possible solutions:")[0]


def _model_folders(target_dir: Path) -> dict[str, str]:
    """unique_id -> the model's folder below its layer (models/<layer>/<folder>/)."""
    try:
        nodes = json.loads((target_dir / "manifest.json").read_text(encoding="utf-8"))["nodes"]
    except (OSError, ValueError, KeyError):
        return {}
    folders = {}
    for uid, node in nodes.items():
        parts = Path(node.get("original_file_path", "")).parts
        if len(parts) >= 4 and parts[0] == "models":
            folders[uid] = parts[2]
    return folders


def failed_models(
    target_dir: Path, db_path: Path, since: datetime, project_dir: Path | None = None
) -> list[FailedModel]:
    """The models that failed in dbt's last run, each with the deliveries
    loaded at or after ``since`` that it reads."""
    failed = _failed_models(target_dir, since)
    if not failed:
        return []
    folders = _model_folders(target_dir)
    by_name = registry.by_name(project_dir)
    loaded: list[tuple[str, str]] = []
    try:
        with duckdb.connect(str(db_path), read_only=True) as con:
            loaded = con.execute(
                f"select source_file, kind from {MANIFEST_TABLE} "
                "where status = 'loaded' and loaded_at >= ? order by source_file",
                [since],
            ).fetchall()
    except duckdb.Error:
        pass  # no manifest yet: nothing was loaded
    out = []
    for uid, message in failed:
        agent = by_name.get(folders.get(uid, ""))
        kinds = set(agent.kinds) if agent else None
        suspects = tuple(path for path, kind in loaded if kinds is None or kind in kinds)
        out.append(FailedModel(uid.split(".")[-1], agent.name if agent else None, message, suspects))
    return out


def describe(failed: list[FailedModel], max_files: int = 10) -> list[str]:
    """Lines for the operator: each failed model, its error, and the
    deliveries to withdraw if the failure follows them."""
    lines = []
    for model in failed:
        where = f"agent {model.agent}" if model.agent else "a shared model"
        lines.append(f"model {model.name} ({where}) failed: {model.message}")
        if len(model.suspects) == 1:
            lines.append(f"  the one delivery it read that is new tonight: {model.suspects[0]}")
            lines.append(
                f"  if the failure follows it, `agent-eval withdraw {model.suspects[0]}` builds the night without it"
            )
        elif model.suspects:
            lines.append(f"  the {len(model.suspects)} deliveries it read that are new tonight:")
            lines += [f"    {path}" for path in model.suspects[:max_files]]
            if len(model.suspects) > max_files:
                lines.append(f"    ... and {len(model.suspects) - max_files} more (ops.load_log)")
            lines.append("  `agent-eval withdraw <file>` builds the night without the one it follows")
        else:
            lines.append("  it read no delivery new tonight: the failure is not one delivery's")
    return lines


MANIFEST_NODE = "model.agent_eval.raw_drop_files"


def first_error(target_dir: Path, since: datetime) -> str | None:
    """The first error of dbt's last run (a node that failed, in run order),
    one line without dbt's preamble: the cause a failed night's last line
    names (a full disk: `No space left on device` and the path). None when
    the results predate ``since`` or nothing errored."""
    for result in _results(target_dir, since):
        if str(result.get("status")).lower() == "error" and result.get("message"):
            return f"{result['unique_id'].split('.')[-1]}: {_error_text(str(result['message']))[:400]}"
    return None


def manifest_step_ended(target_dir: Path, since: datetime) -> bool:
    """Whether dbt's last run wrote the night's manifest (raw_drop_files):
    when it did not, what the night's files were is not known."""
    return any(
        r.get("unique_id") == MANIFEST_NODE and str(r.get("status")).lower() == "success"
        for r in _results(target_dir, since)
    )


def _results(target_dir: Path, since: datetime) -> list[dict]:
    """The node results of dbt's last run; none when run_results.json is
    older than ``since`` (this run stopped before it wrote any)."""
    path = target_dir / "run_results.json"
    try:
        if datetime.fromtimestamp(path.stat().st_mtime, UTC).replace(tzinfo=None) < since:
            return []
        return json.loads(path.read_text(encoding="utf-8"))["results"]
    except (OSError, ValueError, KeyError):
        return []
