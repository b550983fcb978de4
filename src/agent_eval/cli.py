"""`agent-eval`: build the warehouse, render reports, make sample drops;
and the registered agents' own commands (each agent's ``commands`` part,
found through agent_eval.registry, adds them with ``add_commands``).

Exit codes (the full table: docs/operations.md, "Exit codes"):
  0  built and published; no input rejected
  1  failed: dbt (a model error or a failing data test), publishing or a
     report; when dbt failed nothing is published; or the working warehouse
     is damaged (one line naming it and the way back)
  2  usage error (bad option, missing folder, an AGENT_EVAL_* setting that
     breaks its rule, an output path that cannot be written: one line
     naming it and why), or another command holds the warehouse
  3  built and published, but input was rejected: a file whose latest version is rejected,
     or rejected rows in a current set; the message names file, line, reason;
     or an imported run's figures disagree with its tool's
  4  built and published, but a quality gate failed (seed quality_gates): the
     message names agent, metric, value and limit; wins over 3
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from agent_eval import gates, pipeline, registry, report, runner, settings
from agent_eval.pipeline import EXIT_FAILED, EXIT_GATE_FAILED, EXIT_OK, EXIT_REJECTED
from agent_eval.project import Paths, resolve_paths

if TYPE_CHECKING:
    from agent_eval import publish

EXIT_USAGE = 2
EXIT_CODES = __doc__[__doc__.index("Exit codes") :].strip()
# the other commands' codes (their --help epilogs); 2 is also argparse's own
# code for a bad option
USAGE = "  2  usage error (bad option; an output path that cannot be written: one line naming it and why)"
DAMAGED = "  1  the working warehouse is damaged (one line naming it and the way back)"
HELD = "     or another command holds the warehouse"
REPORT_EXIT_CODES = f"""Exit codes:
  0  rendered
{DAMAGED}
{USAGE};
     no warehouse yet, or --set names no set"""
SAMPLES_EXIT_CODES = f"""Exit codes:
  0  written
{USAGE}"""
GATES_EXIT_CODES = f"""Exit codes:
  0  no quality gate failed
{USAGE};
     no warehouse yet
  4  a quality gate failed"""
EXPORT_EXIT_CODES = f"""Exit codes:
  0  written
  1  every-eval-ever: a document the schema refuses (nothing written)
{USAGE};
     no warehouse (xlsx) or published file (every-eval-ever) yet, or a set it does not hold"""
WITHDRAW_EXIT_CODES = f"""Exit codes:
  0  recorded (the next build applies it)
{DAMAGED}
{USAGE};
     no such delivery, no warehouse yet,
{HELD}"""
PUBLISH_EXIT_CODES = f"""Exit codes:
  0  published
  1  dbt's last run failed (without --force), or publishing failed: the
     published files are unchanged; or the working warehouse is damaged
{USAGE};
     no warehouse or no dbt run results yet,
{HELD}"""
SERVE_EXIT_CODES = f"""Exit codes:
  0  stopped (Ctrl-C)
{USAGE};
     a --host beyond loopback without AGENT_EVAL_SERVE_TOKEN"""
COMPARE_EXIT_CODES = f"""Exit codes:
  0  compared
{USAGE};
     no published file yet, fewer than two sets, a set the published file
     has no items of, or sets of several agents"""
# what every "nothing to read yet" message tells the user to run
BUILD_FIRST = "run `agent-eval build` first"


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agent-eval-warehouse")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _common(
    parser: argparse.ArgumentParser,
    *,
    drops: bool = True,
    reports: bool = True,
    published: bool = True,
    demo: bool = False,
) -> None:
    """The location options a command uses (and only those: an option a
    command would ignore is not offered)."""
    where = "warehouse/demo.duckdb" if demo else "$AGENT_EVAL_DB or warehouse/agent_eval.duckdb"
    parser.add_argument("--db", help=f"warehouse DuckDB file (default {where})")
    if drops:
        parser.add_argument(
            "--drops",
            help="drops folder (default " + ("data/drops" if demo else "$AGENT_EVAL_DROPS or data/drops") + ")",
        )
    if reports:
        parser.add_argument(
            "--reports",
            help="reports folder (default " + ("reports/demo" if demo else "$AGENT_EVAL_REPORTS or reports/") + ")",
        )
    parser.add_argument("--project-dir", help="the dbt project (default: found from here)")
    if published:
        parser.add_argument(
            "--published",
            help="folder of the published (served) copy (default "
            + ("" if demo else "$AGENT_EVAL_PUBLISHED or ")
            + "published/ beside the warehouse file)",
        )


def _command(
    sub: argparse._SubParsersAction, name: str, help: str, exit_codes: str, description: str | None = None
) -> argparse.ArgumentParser:
    """A command: ``help`` is its one line in `agent-eval --help` (short
    enough for one line of an 80-column terminal), ``description`` what its
    own --help says first (default: the same), ``exit_codes`` its epilog."""
    return sub.add_parser(
        name,
        help=help,
        description=description or help[0].upper() + help[1:] + ".",
        epilog=exit_codes,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def build_parser(project_dir: Path | None = None) -> argparse.ArgumentParser:
    """The command line: the shared commands, then the agents' own (those of
    the registry of ``project_dir``, default the project in use; none when
    there is no project: the shared commands say so when run)."""
    try:
        agents = registry.registered(project_dir)
    except FileNotFoundError:
        agents = ()
    parser = argparse.ArgumentParser(
        prog="agent-eval",
        description="Agent evaluation warehouse: load nightly drops, score them with dbt, render reports.",
        epilog=EXIT_CODES + "\nEach command's --help lists the codes it uses.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    build = _command(
        sub,
        "build",
        "load the drops, score them with dbt, publish, report",
        EXIT_CODES,
        description="dbt build on the drops (load, score, history, tests), then publish the served copy, "
        "render every report and the morning page, and check the quality gates. Shows one line per stage; "
        "dbt's own output goes to build.log in dbt's log folder (the summary names it).",
    )
    _common(build)
    build.add_argument("--full-refresh", action="store_true", help="rebuild every model from raw history")
    build.add_argument(
        "--unit-tests",
        action="store_true",
        help="also run the dbt unit tests (selector everything; the default is selector nightly)",
    )
    build.add_argument(
        "--skip-unit-tests",
        action="store_true",
        help="the default (selector nightly): kept for scripts written for earlier releases",
    )
    build.add_argument("--no-reports", action="store_true", help="do not render reports")
    build.add_argument(
        "--max-reports",
        type=int,
        default=MAX_REPORTS_PER_BUILD,
        metavar="N",
        help="render at most N changed reports, newest drop first (default %(default)s; 0: no limit); "
        "the others are deferred, not rendered by later builds while their sets stay as they are: "
        "`agent-eval report` renders them",
    )
    _verbose(build)

    rep = _command(
        sub,
        "report",
        "render the reports and the morning page again",
        REPORT_EXIT_CODES,
        description="Render the markdown reports (with their charts) of every set from the marts, and the "
        "morning page of the newest drop (<reports>/morning/<date>.md).",
    )
    _common(rep, drops=False, published=False)
    rep.add_argument("--set", dest="sets", action="append", help="only this set id (repeatable; no morning page)")
    rep.add_argument(
        "--latest", action="store_true", help="only the morning page of the newest drop: <reports>/morning/<date>.md"
    )

    demo = _command(
        sub,
        "demo",
        "build the bundled sample drops into a fresh warehouse",
        EXIT_CODES,
        description="Build the bundled sample drops into a fresh demo warehouse, as `build` does. The samples "
        "hold deliberately bad input: a demo that shows it rejected exits 0.",
    )
    _common(demo, demo=True)
    _verbose(demo)

    gen = _command(sub, "samples", "write the deterministic sample drops", SAMPLES_EXIT_CODES)
    gen.add_argument("--out", required=True, help="drops folder to write into")
    gen.add_argument("--rows", type=int, help="instead of the bundled sample: one resume CSV of about this many rows")
    gen.add_argument("--seed", type=int, default=7)

    gat = _command(
        sub,
        "gates",
        "show the quality gates and write them as JUnit XML",
        GATES_EXIT_CODES,
        description="Show the quality gates of the newest sets (as the last build left them) and write them "
        "as JUnit XML.",
    )
    _common(gat, drops=False, published=False)
    gat.add_argument("--junit", help=f"the JUnit XML to write (default <reports>/{gates.JUNIT_FILE})")

    exp = _command(
        sub,
        "export",
        "the summary marts as Excel, or sets as EEE files",
        EXPORT_EXIT_CODES,
        description="xlsx: the summary marts of the working warehouse as one workbook. every-eval-ever: "
        "any set of any agent of the published file (published/ beside --db, or $AGENT_EVAL_PUBLISHED) as "
        "EvalEval's aggregate JSON and instance JSONL (docs/every-eval-ever.md).",
    )
    _common(exp, drops=False, published=False)
    formats = (*export_formats(agents), "every-eval-ever")
    exp.add_argument("--format", choices=formats, default=formats[0], help=f"default {formats[0]}")
    exp.add_argument(
        "--out",
        help="xlsx: the workbook to write (default <reports>/summary/summary_scores.xlsx); "
        "every-eval-ever: the folder to write data/... into (default <reports>/every-eval-ever)",
    )
    exp.add_argument("--set", dest="sets", action="append", help="only this set id (repeatable)")
    exp.add_argument("set_ids", nargs="*", metavar="SET", help="only these set ids (as --set)")
    cmp = _command(
        sub,
        "compare",
        "any sets of one agent side by side, items paired",
        COMPARE_EXIT_CODES,
        description="Compare sets of one agent of the published file (published/ beside --db, or "
        "$AGENT_EVAL_PUBLISHED), each against the first: items paired by the agent's item key (query and "
        "round; an imported log's sample id and epoch), per metric the paired difference, its 95% interval "
        "clustered by query, a p-value (McNemar's exact test for pass_rate) and Holm's adjustment across the "
        "metrics (docs/compare.md). Sets of different series may be compared. Sets without items (an "
        "aggregate-only agent's or import's) are shown by their own metrics, without a paired test.",
    )
    _common(cmp, drops=False, reports=False)
    cmp.add_argument("set_ids", nargs="+", metavar="SET", help="set ids; the first is the reference (A)")
    cmp_format = cmp.add_mutually_exclusive_group()
    cmp_format.add_argument("--json", action="store_true", help="print the comparison as JSON")
    cmp_format.add_argument("--csv", action="store_true", help="print the comparison as CSV (a row per set and metric)")
    wd = _command(
        sub,
        "withdraw",
        "take a delivery back at the next build",
        WITHDRAW_EXIT_CODES,
        description="Take back a delivery: at the next build its sets leave every mart, history and report "
        "(its rows stay in raw history; --undo restores it).",
    )
    _common(wd, reports=False, published=False)
    wd.add_argument(
        "source_file",
        help="the delivery's path under the drops folder (a file, or a folder: "
        "every file under it), as in ops.load_log.source_file",
    )
    wd.add_argument("--reason", required=True, help="why (kept in operator.withdrawals with who and when)")
    wd.add_argument("--undo", action="store_true", help="restore a withdrawn delivery instead")
    pub = _command(
        sub,
        "publish",
        "publish the warehouse as it is (after `dbt build`)",
        PUBLISH_EXIT_CODES,
        description="Copy the marts, ops and rubric tables of the working warehouse to the published "
        "DuckDB file and Parquet folders, as `agent-eval build` does after dbt: same checks, atomic swap. "
        "Refuses when dbt's last run (run_results.json) failed, other than a quality gate, unless --force.",
    )
    _common(pub, drops=False, reports=False)
    pub.add_argument(
        "--force", action="store_true", help="publish even though dbt's last run failed (what it left is published)"
    )
    srv = _command(
        sub,
        "serve",
        "browse the published file in a web viewer",
        SERVE_EXIT_CODES,
        description="Start the web viewer on the published DuckDB file (http://127.0.0.1:8765 by default): "
        "overview, series, sets, items, summary, engagement and compare pages. Read-only; a nightly build "
        "publishing meanwhile is picked up by the next request. Binding beyond loopback requires "
        "$AGENT_EVAL_SERVE_TOKEN.",
    )
    _common(srv, drops=False, reports=False)
    srv.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1; any other needs AGENT_EVAL_SERVE_TOKEN)",
    )
    srv.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    srv.add_argument("--threads", type=int, default=4, help="request threads (default 4)")
    srv.add_argument(
        "--demo",
        action="store_true",
        help="serve what `agent-eval demo` published (warehouse/published/demo.duckdb; "
        "--db and --published as given to demo)",
    )
    # the agents' own commands, in the registry's order
    kit = command_kit()
    for agent in agents:
        part = agent.part("commands")
        if part is not None and hasattr(part, "add_commands"):
            part.add_commands(sub, kit)
    return parser


def command_kit() -> SimpleNamespace:
    """What an agent's commands use of the command line (its ``commands``
    part's ``add_commands(sub, kit)``): passed in, since an agent imports
    nothing from above the registry."""
    return SimpleNamespace(
        command=_command,
        common=_common,
        paths=_paths,
        cannot_write=cannot_write,
        under_lock=under_lock,
        publish=cmd_publish,
        BUILD_FIRST=BUILD_FIRST,
        USAGE=USAGE,
        HELD=HELD,
        EXIT_OK=EXIT_OK,
        EXIT_FAILED=EXIT_FAILED,
        EXIT_USAGE=EXIT_USAGE,
        EXIT_REJECTED=EXIT_REJECTED,
    )


def export_formats(agents: Sequence[registry.Agent] | None = None) -> dict[str, Callable[..., int]]:
    """The formats of `agent-eval export` the registered agents (default: the
    project in use's) write (their ``commands`` parts' ``EXPORT_FORMATS``):
    name -> ``writer(kit, paths, out, sets)``."""
    found: dict[str, Callable[..., int]] = {}
    for agent in registry.registered() if agents is None else agents:
        part = agent.part("commands")
        found.update(getattr(part, "EXPORT_FORMATS", {}) if part is not None else {})
    return found


def _verbose(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print dbt's own output as it comes (it always goes to build.log in dbt's log folder)",
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; a usage error is reported with the usage of the
    command it belongs to (argparse leaves an unknown option of a command
    to the top-level parser, whose usage says nothing about that command)."""
    # the project whose agents' commands the parser offers: --project-dir
    # when given (main applies it to everything the command does after)
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--project-dir")
    project_dir = early.parse_known_args(argv)[0].project_dir
    parser = build_parser(Path(project_dir).resolve() if project_dir else None)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def _paths(args: argparse.Namespace) -> Paths:
    return resolve_paths(
        db=args.db,
        drops=getattr(args, "drops", None),
        reports=getattr(args, "reports", None),
        project_dir=args.project_dir,
        published=getattr(args, "published", None),
    )


# reports a build renders at most (newest drop first): the first night of a
# long history would otherwise draw every set's charts (about 0.3 s each)
# for an hour; the others are deferred to `agent-eval report` (on demand)
MAX_REPORTS_PER_BUILD = 60


def cmd_build(
    paths: Paths,
    full_refresh: bool = False,
    unit_tests: bool = False,
    reports: bool = True,
    data_tests: bool = True,
    verbose: bool = False,
    max_reports: int | None = MAX_REPORTS_PER_BUILD,
) -> int:
    """Check the options, then, holding the warehouse's lock, run the
    build's stages (agent_eval.pipeline: dbt build into the working
    database, publish the served copy, render reports, the quality gates),
    print the summary and return the exit code they decided. Nothing is
    published when dbt fails.
    The selection is selectors.yml's `nightly` (what a plain `dbt build`
    runs: no unit tests), or `everything` with ``unit_tests``.
    ``data_tests=False`` leaves dbt's data tests out (the test suite's
    builds that check loading semantics, not the data tests).
    While it runs it shows one line per stage (agent_eval.progress); dbt's
    own lines go to <dbt log folder>/build.log, and with ``verbose`` to
    stdout as well. Only the reports whose sets changed are rendered, at
    most ``max_reports`` (None: all) of them (report.render_changed)."""
    if not paths.drops_dir.is_dir():
        print(f"agent-eval: drops folder {paths.drops_dir} does not exist", file=sys.stderr)
        return EXIT_USAGE
    unwritable = unwritable_outputs(paths)
    if unwritable:
        print(f"agent-eval: {unwritable}", file=sys.stderr)
        return EXIT_USAGE
    options = pipeline.Options(
        full_refresh=full_refresh,
        unit_tests=unit_tests,
        reports=reports,
        data_tests=data_tests,
        verbose=verbose,
        max_reports=max_reports,
    )

    def locked() -> int:
        print(f"agent-eval build: {paths.drops_dir} -> {paths.db_path}", flush=True)
        done = pipeline.run(paths, options)
        if done.stopped is not None:
            print(f"agent-eval: FAILED: {done.stopped}", file=sys.stderr)
        else:
            print_build_summary(done)
        assert done.exit_code is not None
        return done.exit_code

    return under_lock(paths, locked)


def print_build_summary(done: pipeline.Build) -> None:
    """What a build did (stdout), then its verdict: the lines that explain
    an exit code other than 0 go to stderr."""
    paths, options, loaded = done.paths, done.options, done.loaded
    assert loaded is not None
    print("\n== summary ==")
    print(runner.format_summary(loaded))
    if done.left_out:
        print(f"left out, never had input (their tables stay as they are): {', '.join(done.left_out)}")
    if done.gate_results:
        print(gates.format_results(done.gate_results))
        print(f"gate results (JUnit XML): {done.junit}")
    rendered = done.rendered
    if options.reports and done.failure is None:
        print(
            f"reports written: {len(rendered.written)} under {paths.reports_dir} "
            f"({rendered.unchanged} unchanged: their sets did not change)"
        )
        for path in rendered.written[: runner.MAX_LISTED]:
            print(f"  {path}")
        if len(rendered.written) > runner.MAX_LISTED:
            print(f"  ... and {len(rendered.written) - runner.MAX_LISTED} more, one folder per agent")
        if done.morning_page is not None:
            print(f"morning page: {done.morning_page}")
        if rendered.n_deferred:
            print(
                f"reports deferred: {rendered.n_deferred} sets ({len(rendered.deferred)} tonight, over the "
                f"limit of {options.max_reports} reports a build, newest drop first): `agent-eval report` renders them"
            )
    if done.published is not None:
        print_published(done.published)
    else:
        print(f"published: nothing; {paths.published_db} is unchanged")
    print(f"working database (dbt only, do not open it from BI tools): {paths.db_path}")
    print(f"dbt's output: {done.log_path} (its debug log: {paths.log_dir / 'dbt.log'})")

    if done.exit_code == EXIT_FAILED:
        print(f"agent-eval: FAILED (exit {EXIT_FAILED}): {done.failure}", file=sys.stderr)
    elif done.exit_code == EXIT_GATE_FAILED:
        for row in done.gate_results:
            if row["status"] == "fail":
                print(f"agent-eval: quality gate failed: {row['reason']}", file=sys.stderr)
        print(
            f"agent-eval: exit {EXIT_GATE_FAILED}: built and published, but a quality gate failed (above)",
            file=sys.stderr,
        )
    elif done.exit_code == EXIT_REJECTED:
        for name, message in done.disagreements:
            print(f"agent-eval: {name}: {message}", file=sys.stderr)
        for path, reason in loaded.rejected_files:
            print(f"agent-eval: rejected file {path}: {reason}", file=sys.stderr)
        if loaded.n_rejected_rows:
            print(f"agent-eval: {loaded.n_rejected_rows} rejected row(s); see ops.rejected_rows", file=sys.stderr)
        print(
            f"agent-eval: exit {EXIT_REJECTED}: built and published, but input was rejected "
            "or disagreed with its tool (above)",
            file=sys.stderr,
        )
    else:
        print(f"agent-eval: exit {EXIT_OK}: built and published, no input rejected")


def os_error_line(err: OSError) -> str:
    """``err`` in one line: the path, then the reason (no errno, no traceback)."""
    if err.filename is None:
        return str(err)
    where = f"{err.filename}" + (f" -> {err.filename2}" if err.filename2 else "")
    return f"{where}: {err.strerror or err}"


def unwritable_line(path: Path, err: OSError) -> str:
    """One line for an output path that cannot be written: the path given,
    the reason, and where it failed when that is another path (a parent)."""
    failed = "" if err.filename is None or Path(err.filename) == path else f" ({err.filename})"
    return f"cannot write {path}: {err.strerror or err}{failed}"


def cannot_write(path: Path, folder: bool) -> str | None:
    """One line naming ``path`` (a folder to write into, or a file to create
    or replace) and why it cannot be written; None when it can. Makes the
    folder (the file's folder) as the write would, and creates and removes
    a file in it: the answer is the operating system's, whoever runs this.
    Folders it had to make are removed again: a check writes nothing."""
    if not folder and path.is_dir():
        return f"cannot write {path}: it is a folder, not a file"
    where = path if folder else path.parent
    existing = next((p for p in (where, *where.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"cannot write {path}: {existing} is a file, not a folder"
    made = [p for p in (where, *where.parents) if existing is None or p not in (existing, *existing.parents)]
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        return f"cannot write {path}: cannot make folder {err.filename or where}: {err.strerror or err}"
    try:
        with tempfile.NamedTemporaryFile(dir=where, prefix=".agent-eval-write-check-"):
            pass
    except OSError as err:
        return f"cannot write {path}: cannot create a file in {where}: {err.strerror or err}"
    finally:
        for folder_made in made:  # the deepest first
            with contextlib.suppress(OSError):
                folder_made.rmdir()
    return None


def unwritable_outputs(paths: Paths) -> str | None:
    """The first output of a build that cannot be written (before anything
    runs, so a build never fails on it after dbt's minutes): the warehouse
    file, dbt's log folder, the published folder, the reports folder (the
    quality gates' JUnit file goes there even without reports)."""
    for path, folder in (
        (paths.db_path, False),
        (paths.log_dir, True),
        (paths.publish_dir, True),
        (paths.reports_dir, True),
    ):
        problem = cannot_write(path, folder)
        if problem:
            return problem
    return None


def under_lock(paths: Paths, run: Callable[[], int], damage_stops: bool = True) -> int:
    """``run()`` holding the warehouse's lock file (runner.WarehouseLock) for
    the whole command; exit 2 at once, in one line, when another agent-eval
    holds it or another process holds the database itself open (a BI tool,
    a plain `dbt build`)."""
    try:
        lock = runner.WarehouseLock.acquire(paths.db_path)
    except OSError as err:
        print(f"agent-eval: {unwritable_line(runner.lock_path(paths.db_path), err)}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(lock, str):
        print(f"agent-eval: {lock}", file=sys.stderr)
        return EXIT_USAGE
    with lock:
        holder = runner.lock_holder(paths.db_path)
        if holder is not None:
            print(f"agent-eval: {holder}", file=sys.stderr)
            return EXIT_USAGE
        problem = runner.damaged(paths.db_path) if damage_stops else None
        if problem is not None:
            print(f"agent-eval: {problem}", file=sys.stderr)
            return EXIT_FAILED
        return run()


def cmd_gates(paths: Paths, junit: str | None) -> int:
    """The gate results the last build left in the warehouse: printed,
    written as JUnit XML; exit 4 when a gate failed."""
    if not paths.db_path.exists():
        print(f"agent-eval: no warehouse at {paths.db_path}; {BUILD_FIRST}", file=sys.stderr)
        return EXIT_USAGE
    target = Path(junit).resolve() if junit else paths.reports_dir / gates.JUNIT_FILE
    unwritable = cannot_write(target, folder=False)
    if unwritable:
        print(f"agent-eval: {unwritable}", file=sys.stderr)
        return EXIT_USAGE
    results = gates.read_results(paths.db_path)
    gates.write_junit(results, target)
    print(gates.format_results(results))
    print(f"JUnit XML: {target}")
    return EXIT_GATE_FAILED if gates.has_failures(results) else EXIT_OK


def cmd_report(paths: Paths, sets: list[str] | None, latest: bool = False) -> int:
    from agent_eval import morning

    if not paths.db_path.exists():
        print(f"agent-eval: no warehouse at {paths.db_path}; {BUILD_FIRST}", file=sys.stderr)
        return EXIT_USAGE
    problem = runner.damaged(paths.db_path)
    if problem is not None:
        print(f"agent-eval: {problem}", file=sys.stderr)
        return EXIT_FAILED
    unwritable = cannot_write(paths.reports_dir, folder=True)
    if unwritable:
        print(f"agent-eval: {unwritable}", file=sys.stderr)
        return EXIT_USAGE
    if latest:
        page = morning.render_morning(paths.db_path, paths.reports_dir)
        if page is None:
            print("agent-eval: the warehouse has no set yet", file=sys.stderr)
            return EXIT_USAGE
        print(page)
        return EXIT_OK
    try:
        written = report.render_all(paths.db_path, paths.reports_dir, sets)
    except KeyError as err:
        print(f"agent-eval: {err.args[0]}", file=sys.stderr)
        return EXIT_USAGE
    # as a build renders them: the sets' reports, then the newest drop's page
    page = morning.render_morning(paths.db_path, paths.reports_dir) if sets is None else None
    for path in written:
        print(path)
    if page is not None:
        print(page)
    print(f"{len(written)} report(s)" + (" and the morning page" if page else "") + f" under {paths.reports_dir}")
    return EXIT_OK


def demo_paths(args: argparse.Namespace) -> Paths:
    """The demo's locations (`demo`, and `serve --demo`): its own defaults
    under the project, each replaced by the option given, if any."""
    project = resolve_paths(project_dir=args.project_dir).project_dir

    def given(name: str, default: Path | None) -> Path | None:
        value = getattr(args, name, None)
        return Path(value).resolve() if value else default

    return Paths(
        project_dir=project,
        db_path=given("db", project / "warehouse" / "demo.duckdb"),
        drops_dir=given("drops", project / "data" / "drops"),
        reports_dir=given("reports", project / "reports" / "demo"),
        published_dir=given("published", None),
    )


def cmd_demo(args: argparse.Namespace) -> int:
    """The README's first command (`make demo`): bundled samples into a fresh demo warehouse.

    The bundled drops hold deliberately bad input (a rejected file, invalid
    tracks), so a demo that shows them rejected has succeeded: exit 0.
    """
    paths = demo_paths(args)
    unwritable = unwritable_outputs(paths)
    if unwritable:  # before the lock file beside the warehouse is made
        print(f"agent-eval: {unwritable}", file=sys.stderr)
        return EXIT_USAGE

    def locked() -> int:
        for stale in (paths.db_path, paths.db_path.with_name(paths.db_path.name + ".wal")):
            stale.unlink(missing_ok=True)
        code = cmd_build(paths, verbose=args.verbose)
        if code in (EXIT_OK, EXIT_REJECTED, EXIT_GATE_FAILED):
            serve = (
                "agent-eval serve --demo"
                + (f" --db {args.db}" if args.db else "")
                + (f" --published {args.published}" if args.published else "")
            )
            print(f"demo: browse the results: `{serve}` (or `make serve`), then open http://127.0.0.1:8765/")
        if code == EXIT_REJECTED:
            print("demo: the rejections above are the sample's deliberate bad input.")
            return EXIT_OK
        return code

    return under_lock(paths, locked, damage_stops=False)  # the demo starts afresh


def cmd_samples(args: argparse.Namespace) -> int:
    from agent_eval import samples

    out = Path(args.out)
    unwritable = cannot_write(out, folder=True)
    if unwritable:
        print(f"agent-eval: {unwritable}", file=sys.stderr)
        return EXIT_USAGE
    if args.rows:
        # the agent whose samples part writes a sample of a given size
        # (``write_rows(out, rows, seed)``)
        writer = next(
            part.write_rows
            for agent in registry.registered()
            if (part := agent.part("samples")) is not None and hasattr(part, "write_rows")
        )
        print(writer(out, args.rows, args.seed))
        return EXIT_OK
    for path in samples.write_sample_drops(out):
        print(path)
    return EXIT_OK


def cmd_withdraw(paths: Paths, target: str, reason: str, undo: bool) -> int:
    """Record a withdrawal (or its undo) in the warehouse; the next build applies it."""
    from agent_eval import withdraw

    def locked() -> int:
        try:
            outcome = withdraw.record(paths.db_path, target, reason, undo=undo)
        except withdraw.WithdrawError as err:
            print(f"agent-eval withdraw: {err}", file=sys.stderr)
            return EXIT_USAGE
        done = "restored" if undo else "withdrawn"
        for source_file, sha256 in outcome.versions:
            print(f"{done}: {source_file} (version {sha256[:12]})")
        for source_file, sha256 in outcome.unchanged:
            print(f"already {done}: {source_file} (version {sha256[:12]})")
        if outcome.versions:
            print(
                f"the next `agent-eval build` {'brings back' if undo else 'removes'} its sets "
                f"{'to' if undo else 'from'} every mart, history and report"
                + (
                    ""
                    if undo
                    else f"; its rows stay in raw history (undo: agent-eval withdraw {target} --undo --reason ...)"
                )
            )
        return EXIT_OK

    return under_lock(paths, locked)


def cmd_export(paths: Paths, out: str | None, sets: list[str] | None, fmt: str | None = None) -> int:
    """The sets as ``fmt`` (default: the first of the export formats);
    every-eval-ever is shared, the others are the agents' own."""
    fmt = fmt or (*export_formats(), "every-eval-ever")[0]
    if fmt == "every-eval-ever":
        return cmd_export_every_eval_ever(paths, out, sets)
    return export_formats()[fmt](command_kit(), paths, out, sets)


def cmd_export_every_eval_ever(paths: Paths, out: str | None, sets: list[str] | None) -> int:
    """Exit 2 for a set the published file does not hold (nothing written),
    1 for a document the schema refuses."""
    from agent_eval.exchange import every_eval_ever

    if not paths.published_db.exists():
        print(f"agent-eval: no published file at {paths.published_db}; {BUILD_FIRST}", file=sys.stderr)
        return EXIT_USAGE
    target = Path(out).resolve() if out else paths.reports_dir / "every-eval-ever"
    unwritable = cannot_write(target, folder=True)
    if unwritable:
        print(f"agent-eval: {unwritable}", file=sys.stderr)
        return EXIT_USAGE
    try:
        written = every_eval_ever.export_sets(paths.published_db, target, sets, paths.project_dir)
    except every_eval_ever.UnknownSet as err:
        print(f"agent-eval: {err}", file=sys.stderr)
        return EXIT_USAGE
    except every_eval_ever.InvalidDocument as err:
        print(f"agent-eval: {err}", file=sys.stderr)
        return EXIT_FAILED
    for item in written:
        print(item.describe())
    print(f"{len(written)} set(s) as Every Eval Ever {every_eval_ever.schema_version()} under {target / 'data'}")
    return EXIT_OK


def cmd_compare(paths: Paths, sets: list[str], fmt: str) -> int:
    """Exit 2 when there is nothing to compare (no published file, an unknown
    set, sets of several agents); the comparison on stdout otherwise."""
    import duckdb

    from agent_eval import compare

    if not paths.published_db.is_file():
        print(f"agent-eval compare: no published file at {paths.published_db}; {BUILD_FIRST}", file=sys.stderr)
        return EXIT_USAGE
    with duckdb.connect(str(paths.published_db), read_only=True) as con:
        try:
            result = compare.compare(con, sets)
        except compare.CompareError as err:
            print(f"agent-eval compare: {err}", file=sys.stderr)
            return EXIT_USAGE
    if fmt == "json":
        print(compare.to_json(result))
    elif fmt == "csv":
        print(compare.to_csv(compare.metric_records(result), compare.METRIC_COLUMNS), end="")
    else:
        print(compare.to_text(result))
    return EXIT_OK


def cmd_publish(paths: Paths, force: bool = False) -> int:
    """Publish the working warehouse as it stands: for operators who run plain
    `dbt build` (which never publishes). The same code and checks as the
    publish step of `agent-eval build`; dbt's last run must have succeeded
    (a failing quality gate aside, as in `build`)."""
    from agent_eval import publish

    if not paths.db_path.is_file():
        print(f"agent-eval publish: no warehouse at {paths.db_path}; {BUILD_FIRST}", file=sys.stderr)
        return EXIT_USAGE

    def locked() -> int:
        broken = gates.broken_nodes(paths.target_dir)
        if broken is None:
            print(f"agent-eval publish: no dbt run results in {paths.target_dir}; {BUILD_FIRST}", file=sys.stderr)
            return EXIT_USAGE
        if broken and not force:
            print(
                f"agent-eval publish: dbt's last run failed ({len(broken)} node(s): {', '.join(broken[:5])}"
                f"{', ...' if len(broken) > 5 else ''}); nothing published, {paths.published_db} is unchanged. "
                "Fix the failure and build again, or publish what is there with --force.",
                file=sys.stderr,
            )
            return EXIT_FAILED
        try:
            published = publish.publish(paths)
        except publish.PublishError as err:
            print(f"agent-eval publish: FAILED (the previous published files are unchanged): {err}", file=sys.stderr)
            return EXIT_FAILED
        print_published(published)
        return EXIT_OK

    return under_lock(paths, locked)


def print_published(published: publish.Published) -> None:
    """The two lines that say what readers now open (`build`, `publish`)."""
    from agent_eval import publish

    print(f"published: {published.db_path} ({len(published.tables)} tables, readable from DuckDB 1.0 on)")
    print(f"parquet:   {published.parquet_dir}/<table>/{publish.PARQUET_FILE}")


LOOPBACK = ("127.0.0.1", "localhost", "::1")
MIN_TOKEN_CHARS = 16


def serve_token(host: str) -> tuple[str | None, str | None]:
    """(token, refusal): the viewer's token from AGENT_EVAL_SERVE_TOKEN; beyond
    loopback a token of at least MIN_TOKEN_CHARS characters is required."""
    try:
        token = settings.value("AGENT_EVAL_SERVE_TOKEN")
    except settings.SettingError as err:
        return None, str(err)
    if host not in LOOPBACK and (token is None or len(token) < MIN_TOKEN_CHARS):
        return None, (
            f"binding {host} (beyond this machine) needs a token: set AGENT_EVAL_SERVE_TOKEN to a "
            f"secret of at least {MIN_TOKEN_CHARS} characters (e.g. `python -c 'import secrets; "
            "print(secrets.token_urlsafe(24))'`)"
        )
    return token, None


def cmd_serve(args: argparse.Namespace) -> int:
    """The web viewer on the published file, until Ctrl-C."""
    from urllib.parse import quote

    import waitress

    from agent_eval.viewer import create_app

    token, refusal = serve_token(args.host)
    if refusal:
        print(f"agent-eval serve: {refusal}", file=sys.stderr)
        return EXIT_USAGE
    published = (demo_paths(args) if args.demo else _paths(args)).published_db
    if not published.is_file():
        print(
            f"agent-eval serve: no published file at {published} yet; the viewer answers 503 until a "
            "build publishes one (`agent-eval build`, or `agent-eval demo` with --demo)",
            file=sys.stderr,
        )
    server = waitress.create_server(
        create_app(published, token=token), host=args.host, port=args.port, threads=args.threads, ident="agent-eval"
    )
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{server.effective_port}/" + (f"?token={quote(token)}" if token else "")
    print(f"agent-eval serve: {published} (read-only)")
    print(f"agent-eval serve: open {url}   (Ctrl-C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # every AGENT_EVAL_* variable is checked before anything runs: a wrong
    # value is a usage error in one line, not a failure half-way through
    try:
        settings.check()
    except settings.SettingError as err:
        print(f"agent-eval: {err}", file=sys.stderr)
        return EXIT_USAGE
    # --project-dir names the project for everything this command does: the
    # agent registry read here (agent_eval.registry) and dbt's loader models
    # see the same one
    project_dir = getattr(args, "project_dir", None)
    with settings.project_in_use(Path(project_dir).resolve() if project_dir else None):
        return run_command(args)


def run_command(args: argparse.Namespace) -> int:
    try:
        if getattr(args, "run", None) is not None:  # an agent's own command
            return args.run(args)
        if args.command == "build":
            return cmd_build(
                _paths(args),
                args.full_refresh,
                args.unit_tests,
                not args.no_reports,
                verbose=args.verbose,
                max_reports=args.max_reports or None,
            )
        if args.command == "report":
            return cmd_report(_paths(args), args.sets, args.latest)
        if args.command == "demo":
            return cmd_demo(args)
        if args.command == "samples":
            return cmd_samples(args)
        if args.command == "gates":
            return cmd_gates(_paths(args), args.junit)
        if args.command == "export":
            return cmd_export(_paths(args), args.out, ((args.sets or []) + args.set_ids) or None, args.format)
        if args.command == "compare":
            return cmd_compare(_paths(args), args.set_ids, "json" if args.json else "csv" if args.csv else "text")
        if args.command == "serve":
            return cmd_serve(args)
        if args.command == "publish":
            return cmd_publish(_paths(args), args.force)
        if args.command == "withdraw":
            return cmd_withdraw(_paths(args), args.source_file, args.reason, args.undo)
    except OSError as err:
        # a path the user named that cannot be read or written (the project
        # not found, a folder where a file belongs): one line, not a traceback
        if err.filename is None and not isinstance(err, FileNotFoundError):
            raise
        print(f"agent-eval: {os_error_line(err)}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
