"""The summary agent's parts of the command line: `agent-eval judge` (the
LLM correction of its review queue) and the ``xlsx`` format of `agent-eval
export` (its marts as one workbook).

The CLI builds its parser from the registry and passes ``kit`` in: what
these commands use of the CLI (the command and option makers, the exit
codes, the warehouse lock, publishing). Nothing here imports from above
the registry (tests/test_agents.py); the judge (which needs openai) and the
workbook writer (openpyxl) are imported when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def judge_exit_codes(kit: Any) -> str:
    return f"""Exit codes:
  0  judged and published, or not configured (nothing sent)
  1  the rebuild or the publish afterwards failed; or the warehouse is damaged
{kit.USAGE};
     the judge's settings are invalid, no warehouse yet,
{kit.HELD}"""


def add_commands(sub: argparse._SubParsersAction, kit: Any) -> None:
    jud = kit.command(
        sub,
        "judge",
        "LLM correction of the summary review queue",
        judge_exit_codes(kit),
        description="LLM correction of the summary review queue, then a rebuild of the marts that read it "
        "and a publish. Off unless AGENT_EVAL_JUDGE_BASE_URL is set.",
    )
    kit.common(jud, drops=False)
    jud.add_argument("--limit", type=int, help="send at most this many review items")
    jud.add_argument("--no-build", action="store_true", help="do not rebuild the summary marts afterwards")
    jud.set_defaults(run=lambda args: cmd_judge(kit, kit.paths(args), args.limit, not args.no_build))


def cmd_judge(kit: Any, paths: Any, limit: int | None = None, build: bool = True) -> int:
    """Send the summary review queue to the configured LLM endpoint, then
    rebuild the models that read the judgments (final scores, marts)."""
    from agent_eval import gates, runner
    from agent_eval.agents.summary import judge

    try:
        config = judge.JudgeConfig.from_env()
    except ValueError as err:
        print(f"agent-eval judge: {err}", file=sys.stderr)
        return kit.EXIT_USAGE
    if config is None:
        print(
            f"agent-eval judge: not configured ({judge.ENV_BASE_URL}, {judge.ENV_MODEL} unset): "
            "nothing sent; final summary scores are the rule scores."
        )
        return kit.EXIT_OK
    if not paths.db_path.exists():
        print(f"agent-eval: no warehouse at {paths.db_path}; {kit.BUILD_FIRST}", file=sys.stderr)
        return kit.EXIT_USAGE

    def locked() -> int:
        print(f"agent-eval judge: {config.endpoint} model {config.model} prompt {judge.PROMPT_VERSION}", flush=True)
        run = judge.run_judge(paths.db_path, config, limit=limit)
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(run.by_status.items())) or "nothing to judge"
        print(f"judged {run.sent} review item(s): {statuses}")
        failed = run.sent - run.by_status.get("ok", 0)
        if failed:
            print(f"agent-eval judge: {failed} attempt(s) failed; their rule scores stay (see judge.summary_judgments)")
        if build and run.sent:
            try:
                runner.run_dbt(
                    paths,
                    [
                        "build",
                        "--project-dir",
                        str(paths.project_dir),
                        "--select",
                        "stg_summary__judgments+",
                        "--exclude-resource-type",
                        "unit_test",
                    ],
                )
            except runner.DbtFailed as err:
                if not gates.only_verdicts_failed(paths.target_dir):
                    print(f"agent-eval: FAILED: {err}", file=sys.stderr)
                    return kit.EXIT_FAILED
            # the corrected scores reach readers now, not at the next nightly build
            return kit.publish(paths)
        return kit.EXIT_OK

    return kit.under_lock(paths, locked)


def export_xlsx(kit: Any, paths: Any, out: str | None, sets: list[str] | None) -> int:
    """`agent-eval export --format xlsx`: the summary marts of the working
    warehouse as one workbook."""
    from agent_eval.agents.summary import export
    from agent_eval.agents.summary import report as summary_report

    if not paths.db_path.exists():
        print(f"agent-eval: no warehouse at {paths.db_path}; {kit.BUILD_FIRST}", file=sys.stderr)
        return kit.EXIT_USAGE
    target = Path(out).resolve() if out else paths.reports_dir / "summary" / summary_report.WORKBOOK
    unwritable = kit.cannot_write(target, folder=False)
    if unwritable:
        print(f"agent-eval: {unwritable}", file=sys.stderr)
        return kit.EXIT_USAGE
    print(export.export_summary_xlsx(paths.db_path, target, sets))
    return kit.EXIT_OK


# the formats of `agent-eval export` this agent writes: name -> writer
EXPORT_FORMATS = {"xlsx": export_xlsx}
