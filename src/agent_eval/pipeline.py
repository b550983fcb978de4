"""`agent-eval build` as a pipeline of named stages.

One ``Build`` object goes down the stages in order, each a function that
reads what the stages before it left and adds its own part:

  dbt      dbt build on the drops (the loaders and every model and test)
  loaded   what the build loaded and what the warehouse holds (ops tables)
  publish  the served copy (agent_eval.publish), only when dbt succeeded
  reports  the changed reports and the morning page, only when published
  gates    the quality gates' results, and their JUnit XML file
  verdict  the exit code

A stage that leaves ``stopped`` set ends the build there (no warehouse
was written, or it holds no ops tables yet). The caller (cli.cmd_build)
checks the options, holds the warehouse's lock around ``run`` and prints
the summary from the finished ``Build``; this module prints nothing but the
stage lines (agent_eval.progress).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from agent_eval import dbt_main, gates, report, runner, suspects
from agent_eval.project import Paths

if TYPE_CHECKING:
    from agent_eval import progress, publish

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_REJECTED = 3
EXIT_GATE_FAILED = 4
# dbt's error lines a failure message quotes at most
MAX_DBT_ERROR_LINES = 40


@dataclass(frozen=True)
class Options:
    """What to build: ``unit_tests`` selects `everything` (else `nightly`),
    ``data_tests=False`` leaves dbt's data tests out, ``max_reports`` bounds
    the reports rendered (None: no bound)."""

    full_refresh: bool = False
    unit_tests: bool = False
    reports: bool = True
    data_tests: bool = True
    verbose: bool = False
    max_reports: int | None = None


@dataclass
class Build:
    """One build as it goes down the stages."""

    paths: Paths
    options: Options
    shown: progress.BuildProgress
    started: datetime
    # raw history's row counts before dbt ran (what dbt appended is beyond them)
    rows_before: dict[str, int] = field(default_factory=dict)
    # the agents it leaves out (agent_eval.left_out), and the digest of
    # what it is computed from (kept by a complete build that succeeds)
    left_out: list[str] = field(default_factory=list)
    digest: str | None = None
    # the first failure (dbt, publishing, rendering): exit 1, its message
    failure: str | None = None
    # set when the build cannot go on: the one line it fails with
    stopped: str | None = None
    loaded: runner.BuildSummary | None = None
    published: publish.Published | None = None
    rendered: report.Rendered = field(default_factory=report.Rendered)
    # the reports, then the morning page when one was written
    written: list[Path] = field(default_factory=list)
    gate_results: list[dict[str, Any]] = field(default_factory=list)
    junit: Path | None = None
    gate_failed: bool = False
    # tagged verdict tests that failed (an imported run disagreeing with its tool)
    disagreements: list[tuple[str, str]] = field(default_factory=list)
    exit_code: int | None = None

    @property
    def log_path(self) -> Path:
        """dbt's output (build.log in dbt's log folder)."""
        from agent_eval import progress

        return self.paths.log_dir / progress.BUILD_LOG

    @property
    def morning_page(self) -> Path | None:
        return self.written[-1] if len(self.written) > len(self.rendered.written) else None


Stage = Callable[[Build], None]


def dbt_arguments(paths: Paths, options: Options, left_out: list[str] | None = None) -> list[str]:
    """The `dbt build` command line of a build; ``left_out``: agents whose
    folders it leaves out of the nightly selection (agent_eval.left_out)."""
    from agent_eval import left_out as leaving

    if left_out:
        # selectors.yml's nightly, less the agents' folders (a --selector
        # would override --exclude)
        excluded = leaving.exclusion(paths.project_dir, left_out)
        selection = ["--select", "fqn:*", "--exclude", "resource_type:unit_test", *excluded]
    else:
        selection = ["--selector", "everything" if options.unit_tests else "nightly"]
    args = [
        "build",
        "--project-dir",
        str(paths.project_dir),
        *selection,
        # events on stdout (the stages, and dbt's lines for build.log);
        # dbt.log stays dbt's debug text
        "--log-format",
        "json",
        "--log-format-file",
        "debug",
    ]
    if options.full_refresh:
        args.append("--full-refresh")
    if not options.data_tests:
        args += ["--exclude-resource-type", "test"]
    return args


def run_dbt(build: Build) -> None:
    """dbt build on the drops. A failing quality gate or rejected input is
    a verdict on the night, not a broken build: every score is there, so
    the night is published and reported all the same (exit 4 / 3). Any
    other failure names dbt's errors, the deliveries of tonight each failed
    model read, and last the cause."""
    from agent_eval import left_out

    paths, shown, options = build.paths, build.shown, build.options
    build.digest = left_out.project_digest(paths.project_dir)
    if paths.db_path.exists():
        # one connection for everything read before dbt (and the erase)
        with duckdb.connect(str(paths.db_path)) as con:
            build.rows_before = runner.raw_row_counts(con)
            stored = left_out.stored_digest(con)
            if stored == build.digest and not (options.full_refresh or options.unit_tests):
                build.left_out = left_out.agents_without_input(con, paths)
            if stored is not None and not build.left_out:
                # a build of every agent may change any agent's tables: the
                # digest holds again only once it has succeeded
                left_out.erase_digest(con)
    # what this build's dbt writes after parsing (agent_eval.dbt_main), never
    # the last build's
    (paths.target_dir / dbt_main.NODES_FILE).unlink(missing_ok=True)
    shown.start()
    try:
        # a subprocess: when it returns, dbt's connections and file lock are gone
        runner.run_dbt(paths, dbt_arguments(paths, options, build.left_out), on_line=shown.dbt_line)
    except runner.DbtFailed as err:
        if not gates.only_verdicts_failed(paths.target_dir):
            failure = f"{err}; dbt's output: {build.log_path}"
            if shown.errors:
                failure += "\n" + "\n".join(shown.error_lines(MAX_DBT_ERROR_LINES))
            failed = suspects.failed_models(paths.target_dir, paths.db_path, build.started, paths.project_dir)
            if failed:
                failure += "\n" + "\n".join(suspects.describe(failed))
            # the last line names the cause (a full disk: the error and its path)
            cause = suspects.first_error(paths.target_dir, build.started)
            if cause:
                failure += f"\nagent-eval: cause: {cause}"
            build.failure = failure
    shown.dbt_done(ok=build.failure is None)
    if not paths.db_path.exists():
        build.stopped = build.failure or "no warehouse was written"
    elif build.failure is None and paths.db_path.is_file():
        left_out.store_digest(paths.db_path, build.digest)


def read_loaded(build: Build) -> None:
    """What this build loaded and what the warehouse holds (runner.read_summary)."""
    try:
        build.loaded = runner.read_summary(build.paths.db_path, since=build.started, rows_before=build.rows_before)
        build.loaded.files_known = build.failure is None or suspects.manifest_step_ended(
            build.paths.target_dir, build.started
        )
    except Exception as err:  # the build failed before the ops tables existed
        build.stopped = build.failure or str(err)


def publish_copy(build: Build) -> None:
    """The served copy, when dbt succeeded; the previous one stays otherwise."""
    from agent_eval import publish

    paths, shown = build.paths, build.shown
    if build.failure is not None:
        shown.skip("publish", "dbt failed: nothing published")
        return
    shown.begin("publish", f"-> {paths.publish_dir}")
    try:
        build.published = publish.publish(paths, skip_unchanged=True)
        kept = " unchanged, nothing copied:" if build.published.unchanged else " ->"
        shown.finish("publish", f"{len(build.published.tables)} tables{kept} {paths.publish_dir}")
    except publish.PublishError as err:
        build.failure = f"publish failed (the previous published files are unchanged): {err}"
        shown.finish("publish", "failed: the previous published files are unchanged", failed=True)


def render_reports(build: Build) -> None:
    """The reports whose sets changed (report.render_changed), then the
    morning page; nothing after a failure or with --no-reports."""
    from agent_eval import morning

    paths, shown = build.paths, build.shown
    if not build.options.reports or build.failure is not None:
        shown.skip("reports", "--no-reports" if build.failure is None else "not rendered: the build failed")
        return
    shown.begin("reports", f"-> {paths.reports_dir}")
    try:
        build.rendered = report.render_changed(paths.db_path, paths.reports_dir, build.options.max_reports)
        build.written = list(build.rendered.written)
        page = morning.render_morning(paths.db_path, paths.reports_dir)
        if page is not None:
            build.written.append(page)
        shown.finish("reports", f"{len(build.rendered.written)} written, {build.rendered.unchanged} unchanged")
    except Exception as err:
        build.failure = f"report rendering failed: {type(err).__name__}: {err}"
        shown.finish("reports", f"failed: {type(err).__name__}", failed=True)


def check_gates(build: Build) -> None:
    """The quality gates as dbt left them, written as JUnit XML for CI."""
    build.shown.begin("gates")
    build.gate_results = gates.read_results(build.paths.db_path)
    if build.gate_results:
        build.junit = gates.write_junit(build.gate_results, build.paths.reports_dir / gates.JUNIT_FILE)
    build.gate_failed = gates.has_failures(build.gate_results)
    build.shown.finish("gates", gate_counts(build.gate_results), failed=build.gate_failed)


def verdict(build: Build) -> None:
    """The exit code: a failure (1) wins over a failed gate (4), which wins
    over rejected input or an imported run disagreeing with its tool (3)."""
    if build.failure:
        build.exit_code = EXIT_FAILED
        return
    if build.gate_failed:
        build.exit_code = EXIT_GATE_FAILED
        return
    build.disagreements = gates.failed_tagged_verdicts(build.paths.target_dir, build.paths.db_path)
    assert build.loaded is not None
    build.exit_code = EXIT_REJECTED if build.loaded.has_rejections or build.disagreements else EXIT_OK


# the stages in order, by the name the docs use
STAGES: tuple[tuple[str, Stage], ...] = (
    ("dbt", run_dbt),
    ("loaded", read_loaded),
    ("publish", publish_copy),
    ("reports", render_reports),
    ("gates", check_gates),
    ("verdict", verdict),
)


def run(paths: Paths, options: Options) -> Build:
    """Every stage in order, on one Build; the stage lines on stdout while
    it runs (dbt's own lines to build.log, and with ``verbose`` to stdout)."""
    from agent_eval import left_out, progress

    build = Build(
        paths=paths,
        options=options,
        shown=progress.BuildProgress(
            sys.stdout,
            paths.log_dir / progress.BUILD_LOG,
            live=sys.stdout.isatty() and os.environ.get("TERM") != "dumb",
            verbose=options.verbose,
            totals=lambda: progress.stage_totals(
                paths.target_dir,
                unit_tests=options.unit_tests,
                data_tests=options.data_tests,
                left_out=tuple(left_out.folders(paths.project_dir, build.left_out)),
            ),
        ),
        started=datetime.now(UTC).replace(tzinfo=None),
    )
    try:
        for _, stage in STAGES:
            stage(build)
            if build.stopped is not None:
                build.exit_code = EXIT_FAILED
                break
    finally:
        build.shown.close()
    return build


def gate_counts(results: list[dict[str, Any]]) -> str:
    """The quality gates in a few words (the progress line; the summary lists them)."""
    if not results:
        return "no quality gate applies"
    counts = Counter(row["status"] for row in results)
    return "quality gates " + ", ".join(
        f"{counts[status]} {status.replace('_', ' ')}"
        for status in ("pass", "fail", "stale", "no_data")
        if counts[status] or status in ("pass", "fail")
    )
