"""The engagement agent's part of the command line: `agent-eval evaluate`,
one run folder scored against its expected data (SPEC 5,
agent_eval.agents.engagement.evaluate).

The CLI builds its parser from the registry and passes ``kit`` in: what
this command uses of the CLI (the command maker, the exit codes). Nothing
here imports from above the registry (tests/test_agents.py); the
evaluation itself is imported when the command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def evaluate_exit_codes(kit: Any) -> str:
    return f"""Exit codes:
  0  evaluated, no line rejected
{kit.USAGE};
     a missing expected file, run folder or simulation file
  3  invalid input (expected file against expected-schema.json, simulation
     file without runId, an empty run), or rejected lines (the result is
     still written)"""


def add_commands(sub: argparse._SubParsersAction, kit: Any) -> None:
    ev = kit.command(
        sub,
        "evaluate",
        "score one engagement run against expected data",
        evaluate_exit_codes(kit),
        description="Evaluate one run folder (<agentId>/actions.jsonl files) against an "
        "expected.json, with the warehouse's dbt models; write the result JSON (SPEC 5).",
    )
    ev.add_argument("--expected", required=True, help="expected data JSON (expected-schema.json)")
    which = ev.add_mutually_exclusive_group()
    which.add_argument("--run-id", help="evaluate <outputs dir>/<run id>")
    which.add_argument("--run-dir", help="evaluate this run folder")
    which.add_argument("--simulation-file", help="JSON file whose runId names the run under the outputs dir")
    ev.add_argument("--output", help="result JSON path (default <results dir>/<evaluationId>.json)")
    ev.add_argument("--print-json", action="store_true", help="print the whole result JSON on stdout")
    ev.add_argument(
        "--outputs-dir",
        help="folder of run folders (default $AGENT_EVAL_OUTPUTS, else "
        "agent/outputs under the nearest folder upwards that has one)",
    )
    ev.add_argument(
        "--results-dir",
        help="folder for result files (default $AGENT_EVAL_RESULTS, else "
        "shared/evaluation/results beside that agent/ folder)",
    )
    ev.add_argument("--evaluation-id", help="evaluationId (default <runId>-<UTC time>)")
    ev.add_argument("--project-dir", help="the dbt project (default: found from here)")
    ev.set_defaults(run=lambda args: cmd_evaluate(kit, args))


def cmd_evaluate(kit: Any, args: argparse.Namespace) -> int:
    """Exit 0 when evaluated cleanly, 3 with the result written when lines
    were rejected, else the EvaluateError's code (no result written)."""
    from agent_eval.agents.engagement import evaluate
    from agent_eval.project import resolve_paths

    log = sys.stderr if args.print_json else sys.stdout
    outputs_dir = (
        Path(args.outputs_dir).expanduser().resolve()
        if args.outputs_dir
        else evaluate.default_dir("AGENT_EVAL_OUTPUTS", evaluate.DEFAULT_OUTPUTS)
    )
    results_dir = (
        Path(args.results_dir).expanduser().resolve()
        if args.results_dir
        else evaluate.default_dir("AGENT_EVAL_RESULTS", evaluate.DEFAULT_RESULTS)
    )
    try:
        project_dir = resolve_paths(project_dir=args.project_dir).project_dir
        run_dir = evaluate.resolve_run_dir(outputs_dir, args.run_id, args.run_dir, args.simulation_file)
        expected = Path(args.expected).expanduser().resolve()
        print(f"agent-eval evaluate: run {run_dir.name} ({run_dir}) against {expected}", file=log, flush=True)
        done = evaluate.evaluate(project_dir, expected, run_dir, evaluation_id=args.evaluation_id)
    except evaluate.EvaluateError as err:
        print(f"agent-eval evaluate: {err}", file=sys.stderr)
        return err.exit_code
    result = done.result
    output = Path(args.output).expanduser().resolve() if args.output else results_dir / f"{result['evaluationId']}.json"
    evaluate.write_result(result, output)
    if args.print_json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print("\n".join(evaluate.summary_lines(result)))
    print(f"result: {output}", file=log)
    if done.warnings:
        for warning in done.warnings:
            print(f"agent-eval evaluate: rejected {warning}", file=sys.stderr)
        return kit.EXIT_REJECTED
    return kit.EXIT_OK
