"""`agent-eval evaluate`: one agent run against its expected data (SPEC §5).

The numbers come from the same dbt models as the nightly marts; nothing here
computes a score. The steps:

1. find the run folder (``--run-dir``, ``--run-id``, ``--simulation-file``,
   else the newest folder under the outputs folder) and check the expected
   file against ``expected-schema.json``;
2. stage the run and the expected file as one drop in the standard layout
   (``<tmp>/drops/<today>/engagement/<runId>/{<agentId>/actions.jsonl,
   expected.json}``);
3. compute the engagement marts and their parents with the models' own
   compiled SQL (:mod:`agent_eval.agents.engagement.evaluate_plan`): dbt builds a template
   warehouse and a plan once per project state (unit tests and data tests
   excluded: the models are the nightly ones, tested by CI and by every
   nightly build; the inputs were validated here); each evaluation copies
   the template, runs the Python loaders on the staged drop and recomputes
   the tables in dependency order, without starting dbt;
4. read the marts and shape the result JSON (``result-schema.json``).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from agent_eval import runner, schemas, settings
from agent_eval.agents.engagement import evaluate_plan
from agent_eval.db import rows
from agent_eval.project import Paths

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_REJECTED = 3

DEFAULT_OUTPUTS = Path("agent") / "outputs"
DEFAULT_RESULTS = Path("shared") / "evaluation" / "results"
ACTIONS_FILE = "actions.jsonl"
SCHEMA_VERSION = "1.0"
# Parents included: loader, file versions, seeds. load_log reports files the
# loader rejected (e.g. an empty actions.jsonl).
DBT_SELECT = list(evaluate_plan.DBT_SELECT)


class EvaluateError(Exception):
    """A problem the user can act on; ``exit_code`` is the CLI's exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class Evaluation:
    result: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def workspace_root(start: Path | None = None) -> Path:
    """The folder the source's relative defaults hang from: the nearest of the
    working directory and its parents that holds ``agent/outputs`` (so both
    ``cd agent`` and the project root work, as in the source), else the
    working directory."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / DEFAULT_OUTPUTS).is_dir():
            return folder
    return here


def default_dir(env_name: str, default: Path, root: Path | None = None) -> Path:
    """$env_name (relative to the working directory), else ``default`` under
    the workspace root."""
    value = settings.value(env_name)
    if value:
        return value.resolve()
    return ((root or workspace_root()) / default).resolve()


def load_expected(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise EvaluateError(f"expected file {path} does not exist", EXIT_USAGE)
    try:
        document = json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise EvaluateError(f"expected file {path} is not valid JSON: {err}", EXIT_REJECTED) from None
    problem = schemas.expected_problem(document)
    if problem:
        raise EvaluateError(f"expected file {path}: {problem}", EXIT_REJECTED)
    return document


def run_id_from_simulation(path: Path) -> str:
    """The ``runId`` of a simulation file (JSON with a non-blank string runId)."""
    if not path.is_file():
        raise EvaluateError(f"simulation file {path} does not exist", EXIT_USAGE)
    try:
        document = json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise EvaluateError(f"simulation file {path} is not valid JSON: {err}", EXIT_REJECTED) from None
    run_id = document.get("runId") if isinstance(document, dict) else None
    if not isinstance(run_id, str) or not run_id.strip():
        raise EvaluateError(
            f"simulation file {path} has no runId (a non-empty string at the top level)",
            EXIT_REJECTED,
        )
    return run_id.strip()


def _activity(folder: Path) -> float:
    """Latest modification of a run folder: itself or any of its actions files."""
    times = [folder.stat().st_mtime]
    times += [p.stat().st_mtime for p in folder.glob(f"*/{ACTIONS_FILE}") if p.is_file()]
    return max(times)


def newest_run_dir(outputs_dir: Path) -> Path:
    """The run folder under ``outputs_dir`` with the latest activity (ties: greatest name)."""
    if not outputs_dir.is_dir():
        raise EvaluateError(
            f"no run folder found: outputs folder {outputs_dir} does not exist "
            "(give --run-id, --run-dir or --simulation-file, or --outputs-dir)",
            EXIT_USAGE,
        )
    runs = [p for p in outputs_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
    if not runs:
        raise EvaluateError(f"no run folder found under {outputs_dir}", EXIT_USAGE)
    return max(runs, key=lambda p: (_activity(p), p.name))


def resolve_run_dir(
    outputs_dir: Path,
    run_id: str | None = None,
    run_dir: str | None = None,
    simulation_file: str | None = None,
) -> Path:
    """The run folder to evaluate.

    At most one of run_dir / run_id / simulation_file (the CLI enforces it);
    with none, the newest run folder under ``outputs_dir``.
    """
    given = [o for o in (run_id, run_dir, simulation_file) if o]
    if len(given) > 1:
        raise EvaluateError("give at most one of --run-id, --run-dir, --simulation-file", EXIT_USAGE)
    if run_dir:
        folder = Path(run_dir).expanduser().resolve()
        if not folder.is_dir():
            raise EvaluateError(f"no run folder found: {folder} is not a folder", EXIT_USAGE)
        return folder
    if simulation_file:
        run_id = run_id_from_simulation(Path(simulation_file).expanduser().resolve())
    if run_id:
        folder = outputs_dir / run_id
        if not folder.is_dir():
            raise EvaluateError(f"no run folder found: {folder} does not exist", EXIT_USAGE)
        return folder
    return newest_run_dir(outputs_dir)


def action_files(run_dir: Path) -> list[Path]:
    files = sorted(p for p in run_dir.glob(f"*/{ACTIONS_FILE}") if p.is_file())
    if not files:
        hint = ""
        if (run_dir / ACTIONS_FILE).is_file():
            hint = f" ({ACTIONS_FILE} must sit in an <agentId>/ folder of the run)"
        raise EvaluateError(f"empty run: no <agentId>/{ACTIONS_FILE} under {run_dir}{hint}", EXIT_REJECTED)
    return files


# ---------------------------------------------------------------------------
# Computing with the dbt models
# ---------------------------------------------------------------------------


def stage_drop(drops_dir: Path, run_dir: Path, files: list[Path], expected: Path, day: str) -> str:
    """Copy the run into ``drops_dir`` in the standard layout; return its set_id."""
    run_id = run_dir.name
    target = drops_dir / day / "engagement" / run_id
    for source in files:
        destination = target / source.parent.name / ACTIONS_FILE
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
    shutil.copyfile(expected, target / "expected.json")
    return f"{day}/engagement/{run_id}"


def build_marts(project_dir: Path, work: Path) -> Path:
    """The slow path: ``dbt build`` of the selection on the staged drop (used
    only when the plan holds a node a replay cannot compute)."""
    paths = Paths(
        project_dir=project_dir,
        db_path=work / "evaluate.duckdb",
        drops_dir=work / "drops",
        reports_dir=work / "reports",
        dbt_work_dir=work / "dbt",
    )
    args = ["build", "--project-dir", str(project_dir), *evaluate_plan.DBT_BUILD_ARGS]
    try:
        runner.run_dbt(paths, args, quiet=True)
    except runner.DbtFailed as err:
        raise EvaluateError(str(err), EXIT_FAILED) from None
    return paths.db_path


def _notice(message: str) -> None:
    print(f"agent-eval evaluate: {message}", file=sys.stderr, flush=True)


def _plan(project_dir: Path, rebuild: bool, notify: Callable[[str], None]) -> evaluate_plan.Plan:
    try:
        return evaluate_plan.ensure_plan(project_dir, rebuild=rebuild, notify=notify)
    except runner.DbtFailed as err:
        raise EvaluateError(str(err), EXIT_FAILED) from None
    except (evaluate_plan.PlanError, OSError) as err:
        raise EvaluateError(
            f"cannot prepare the evaluation plan in {evaluate_plan.cache_root()} "
            f"(AGENT_EVAL_CACHE sets the folder): {err}",
            EXIT_FAILED,
        ) from None


def _failed(err: Exception) -> str:
    return f"computing the engagement marts failed: {type(err).__name__}: {err}"


def compute_marts(project_dir: Path, work: Path, notify: Callable[[str], None] = _notice) -> Path:
    """The engagement marts of the drop staged in ``work/drops``, computed
    with the models' compiled SQL (the cached plan); return the DuckDB file.

    A failure on a cached plan (stale or damaged cache) rebuilds it once and
    tries again; a failure on a plan built just now is an error (exit 1).
    """
    drops = work / "drops"
    plan = _plan(project_dir, False, notify)
    if plan.unsupported:
        notify("the plan holds nodes a replay cannot compute (" + "; ".join(plan.unsupported) + "): running dbt build")
        return build_marts(project_dir, work)
    try:
        return evaluate_plan.run_plan(plan, work / "replay-1", drops)
    except Exception as err:  # any failure: stale cache or real error
        if plan.built_now:
            raise EvaluateError(_failed(err), EXIT_FAILED) from None
        notify(f"the cached evaluation plan failed ({type(err).__name__}: {str(err)[:200]})")
    plan = _plan(project_dir, True, notify)
    try:
        return evaluate_plan.run_plan(plan, work / "replay-2", drops)
    except Exception as err:
        raise EvaluateError(_failed(err), EXIT_FAILED) from None


def _num(value: Any) -> Any:
    """JSON-friendly number: integral floats print as integers (30, not 30.0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _actual(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "totalActs": row["total_acts"],
        "likeCount": row["like_count"],
        "commentCount": row["comment_count"],
        "likeRate": _num(row["like_rate"]),
        "commentRate": _num(row["comment_rate"]),
        "engagementCount": row["engagement_count"],
    }


def _metrics(metric_rows: list[dict[str, Any]], overall: Any) -> dict[str, Any]:
    metrics: dict[str, Any] = {}
    for m in metric_rows:
        metrics[m["metric"]] = {
            "expected": _num(m["expected_value"]),
            "actual": _num(m["actual_value"]),
            "absError": _num(m["abs_error"]),
            "relativeError": _num(m["relative_error"]),
            "similarity": _num(m["similarity"]),
            "weight": _num(m["weight"]),
        }
    metrics["overallSimilarity"] = _num(overall)
    return metrics


def _weighting(row: dict[str, Any]) -> dict[str, Any]:
    return {"method": row["weighting_method"], "weightSum": _num(row["weight_sum"])}


def _interpretation(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "band": row["interpretation_band"],
        "label": row["interpretation_label"],
        "labelEn": row["interpretation_label_en"],
    }


def read_result(db_path: Path, set_id: str, run_dir: Path) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """(run row, result body, rejection messages naming the user's files)."""

    def original(source_file: str) -> Path:
        return run_dir / source_file.split("/", 3)[3]

    with duckdb.connect(str(db_path), read_only=True) as con:
        runs = rows(con, "select * from marts.engagement_run_scores where set_id = ?", [set_id])
        if not runs:
            raise EvaluateError(f"the build produced no run {set_id}", EXIT_FAILED)
        run = runs[0]
        run_metrics = rows(
            con,
            "select * from marts.engagement_run_metrics where set_id = ? order by metric_order",
            [set_id],
        )
        personas = rows(
            con,
            "select * from marts.engagement_persona_scores where set_id = ? order by persona",
            [set_id],
        )
        persona_metrics = rows(
            con,
            "select * from marts.engagement_persona_metrics where set_id = ? order by persona, metric_order",
            [set_id],
        )
        rejected = [
            f"{original(r['source_file'])}:{r['line_number']}: {r['reject_reason']}"
            for r in rows(
                con,
                "select source_file, line_number, reject_reason "
                "from staging.stg_engagement__actions "
                "where reject_reason is not null order by source_file, line_number",
            )
        ]
        rejected += [
            f"{original(r['source_file'])}: file rejected: {r['reject_reason']}"
            for r in rows(
                con,
                "select source_file, reject_reason from ops.load_log where status = 'rejected' order by source_file",
            )
        ]
    body: dict[str, Any] = {
        "actual": _actual(run),
        "lines": {
            "total": run["n_lines_read"],
            "counted": run["total_acts"],
            "notAct": run["n_not_act"],
            "notOk": run["n_not_ok"],
            "rejected": run["n_rejected_lines"],
        },
    }
    if run["evaluation_state"] == "evaluated":
        body["metrics"] = _metrics(run_metrics, run["overall_similarity"])
        body["weighting"] = _weighting(run)
        body["interpretation"] = _interpretation(run)
    per_persona: dict[str, Any] = {}
    for p in personas:
        scored = p["overall_similarity"] is not None
        mine = [m for m in persona_metrics if m["persona"] == p["persona"]]
        per_persona[p["persona"]] = {
            "inLogs": p["in_logs"],
            "inExpected": p["in_expected"],
            "actual": _actual(p),
            "metrics": _metrics(mine, p["overall_similarity"]) if scored else None,
            "weighting": _weighting(p) if scored else None,
            "interpretation": _interpretation(p) if scored else None,
        }
    body["perPersona"] = per_persona
    return run, body, rejected


def evaluate(
    project_dir: Path,
    expected_path: Path,
    run_dir: Path,
    evaluation_id: str | None = None,
    now: datetime | None = None,
) -> Evaluation:
    """Evaluate ``run_dir`` against ``expected_path``; raise EvaluateError on bad input."""
    load_expected(expected_path)
    files = action_files(run_dir)
    moment = now or datetime.now(UTC)
    run_id = run_dir.name
    with tempfile.TemporaryDirectory(prefix="agent-eval-evaluate-") as tmp:
        work = Path(tmp)
        set_id = stage_drop(work / "drops", run_dir, files, expected_path, moment.strftime("%Y-%m-%d"))
        db_path = compute_marts(project_dir, work)
        run, body, rejected = read_result(db_path, set_id, run_dir)
    if run["evaluation_state"] == "no_actions":
        raise EvaluateError(
            f"empty run: no usable action line in {run_dir}" + "".join(f"\n  {r}" for r in rejected),
            EXIT_REJECTED,
        )
    if run["evaluation_state"] != "evaluated":  # the expected file was validated above
        raise EvaluateError(f"run {run_id} was not evaluated ({run['evaluation_state']})", EXIT_FAILED)
    result: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "evaluationId": evaluation_id or f"{run_id}-{moment.strftime('%Y%m%dT%H%M%SZ')}",
        "runId": run_id,
        "evaluatedAt": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "source": {
            "runDir": str(run_dir),
            "expectedFile": str(expected_path),
            "actionFiles": [f"{p.parent.name}/{p.name}" for p in files],
        },
        **body,
    }
    problem = schemas.result_problem(result)
    if problem:
        raise EvaluateError(f"internal error, the result does not conform: {problem}", EXIT_FAILED)
    return Evaluation(result=result, warnings=rejected)


def write_result(result: dict[str, Any], output: Path) -> Path:
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return output


def summary_lines(result: dict[str, Any]) -> list[str]:
    """Human summary of a result (values as computed; formatting only)."""
    lines = [
        f"run {result['runId']}: {result['actual']['totalActs']} counted act(s) of {result['lines']['total']} line(s)"
    ]
    for name, metric in result["metrics"].items():
        if name == "overallSimilarity":
            continue
        lines.append(
            f"  {name:<13} expected {metric['expected']:<8} actual {metric['actual']:<8} "
            f"similarity {metric['similarity']}"
        )
    band = result["interpretation"]
    method = result["weighting"]["method"]
    lines.append(
        f"  overallSimilarity {result['metrics']['overallSimilarity']} ({method}) -> {band['band']}: {band['label']}"
    )
    return lines
