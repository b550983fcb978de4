"""`agent-eval`: build the warehouse, render reports, make sample drops.

Exit codes (also in the README):
  0  built; no input rejected
  1  dbt failed (a model error or a failing data test) or a report failed
  2  usage error (bad option, missing folder)
  3  built, but input was rejected: a file whose latest version is rejected,
     or rejected rows in a current set; the message names file, line, reason
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from agent_eval import report, runner, samples
from agent_eval.project import Paths, resolve_paths

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_REJECTED = 3


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="warehouse DuckDB file (default $AGENT_EVAL_DB or warehouse/agent_eval.duckdb)")
    parser.add_argument("--drops", help="drops folder (default $AGENT_EVAL_DROPS or data/drops)")
    parser.add_argument("--reports", help="reports folder (default $AGENT_EVAL_REPORTS or reports/)")
    parser.add_argument("--project-dir", help="the dbt project (default: found from here)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-eval",
        description="Agent evaluation warehouse: load nightly drops, score them with dbt, render reports.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build", help="dbt build on the drops, then render every report")
    _common(build)
    build.add_argument("--full-refresh", action="store_true", help="rebuild every model from raw history")
    build.add_argument("--skip-unit-tests", action="store_true", help="exclude dbt unit tests (nightly use)")
    build.add_argument("--no-reports", action="store_true", help="do not render reports")

    rep = sub.add_parser("report", help="render markdown reports from the marts")
    _common(rep)
    rep.add_argument("--set", dest="sets", action="append", help="only this set id (repeatable)")

    demo = sub.add_parser("demo", help="build the bundled sample drops into a fresh demo warehouse")
    _common(demo)

    gen = sub.add_parser("samples", help="write deterministic sample drops")
    gen.add_argument("--out", required=True, help="drops folder to write into")
    gen.add_argument("--rows", type=int, help="instead of the bundled sample: one resume CSV of about this many rows")
    gen.add_argument("--seed", type=int, default=7)
    return parser


def _paths(args: argparse.Namespace) -> Paths:
    return resolve_paths(db=args.db, drops=args.drops, reports=args.reports, project_dir=args.project_dir)


def cmd_build(paths: Paths, full_refresh: bool = False, skip_unit_tests: bool = False,
              reports: bool = True) -> int:
    if not paths.drops_dir.is_dir():
        print(f"agent-eval: drops folder {paths.drops_dir} does not exist", file=sys.stderr)
        return EXIT_USAGE
    print(f"agent-eval: building {paths.db_path} from {paths.drops_dir}", flush=True)
    dbt_args = ["build", "--project-dir", str(paths.project_dir)]
    if full_refresh:
        dbt_args.append("--full-refresh")
    if skip_unit_tests:
        dbt_args += ["--exclude-resource-type", "unit_test"]
    failure: str | None = None
    started = datetime.now(timezone.utc).replace(tzinfo=None)
    try:
        runner.run_dbt(paths, dbt_args)
    except runner.DbtFailed as err:
        failure = str(err)
    if not paths.db_path.exists():
        print(f"agent-eval: {failure or 'no warehouse was written'}", file=sys.stderr)
        return EXIT_FAILED
    try:
        summary = runner.read_summary(paths.db_path, since=started)
    except Exception as err:  # the build failed before the ops tables existed
        print(f"agent-eval: {failure or err}", file=sys.stderr)
        return EXIT_FAILED
    print("\n== summary ==")
    print(runner.format_summary(summary))
    written: list[Path] = []
    if reports and failure is None:
        written = report.render_all(paths.db_path, paths.reports_dir)
        print(f"reports written: {len(written)} under {paths.reports_dir}")
        for path in written:
            print(f"  {path}")
    print(f"warehouse: {paths.db_path}")
    if failure:
        print(f"agent-eval: FAILED: {failure}", file=sys.stderr)
        return EXIT_FAILED
    if summary.has_rejections:
        for path, reason in summary.rejected_files:
            print(f"agent-eval: rejected file {path}: {reason}", file=sys.stderr)
        if summary.n_rejected_rows:
            print(
                f"agent-eval: {summary.n_rejected_rows} rejected row(s); see ops.rejected_rows",
                file=sys.stderr,
            )
        return EXIT_REJECTED
    return EXIT_OK


def cmd_report(paths: Paths, sets: list[str] | None) -> int:
    if not paths.db_path.exists():
        print(f"agent-eval: no warehouse at {paths.db_path}; run `agent-eval build` first", file=sys.stderr)
        return EXIT_USAGE
    if sets:
        written = report.render_resume_reports(paths.db_path, paths.reports_dir, sets)
    else:
        written = report.render_all(paths.db_path, paths.reports_dir)
    for path in written:
        print(path)
    print(f"{len(written)} report(s) under {paths.reports_dir}")
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    """The README's first command: bundled samples into a fresh demo warehouse.

    The bundled drops hold deliberately bad input (a rejected file, invalid
    tracks), so a demo that shows them rejected has succeeded: exit 0.
    """
    base = resolve_paths(project_dir=args.project_dir)
    paths = Paths(
        project_dir=base.project_dir,
        db_path=Path(args.db).resolve() if args.db else base.project_dir / "warehouse" / "demo.duckdb",
        drops_dir=Path(args.drops).resolve() if args.drops else base.project_dir / "data" / "drops",
        reports_dir=Path(args.reports).resolve() if args.reports else base.project_dir / "reports" / "demo",
    )
    for stale in (paths.db_path, paths.db_path.with_name(paths.db_path.name + ".wal")):
        stale.unlink(missing_ok=True)
    code = cmd_build(paths)
    if code == EXIT_REJECTED:
        print("demo: the rejections above are the sample's deliberate bad input.")
        return EXIT_OK
    return code


def cmd_samples(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if args.rows:
        rounds = ["1/1", "2/1", "3/1"]
        path = samples.write_resume_csv(
            out / "2026-11-01" / "resume_agent_bench.csv",
            n_queries=max(1, args.rows // len(rounds)),
            rounds=rounds,
            seed=args.seed,
            with_special_rows=False,
        )
        print(path)
        return EXIT_OK
    for path in samples.write_sample_drops(out):
        print(path)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "build":
            return cmd_build(_paths(args), args.full_refresh, args.skip_unit_tests, not args.no_reports)
        if args.command == "report":
            return cmd_report(_paths(args), args.sets)
        if args.command == "demo":
            return cmd_demo(args)
        if args.command == "samples":
            return cmd_samples(args)
    except FileNotFoundError as err:
        print(f"agent-eval: {err}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
