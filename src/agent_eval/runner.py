"""Driving dbt, and reading back what the build did.

dbt runs in a subprocess: its DuckDB connection (and file lock) ends with the
process, so the report step can open the warehouse right after.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import duckdb

from agent_eval.project import Paths


class DbtFailed(RuntimeError):
    """dbt exited non-zero; the message names the command and exit code."""


def run_dbt(
    paths: Paths, args: Sequence[str], quiet: bool = False, on_line: Callable[[str], None] | None = None
) -> None:
    """dbt ``args`` on the warehouse of ``paths``; raises DbtFailed when it
    fails. Its output (stdout and stderr) is printed, or with ``quiet``
    kept for the failure's message, or with ``on_line`` handed over line by
    line as it comes (nothing printed: `agent-eval build`'s progress)."""
    paths.db_path.parent.mkdir(parents=True, exist_ok=True)
    if args and "--project-dir" not in args:  # dbt may run outside the project
        args = [args[0], "--project-dir", str(paths.project_dir), *args[1:]]
    cwd, env = paths.dbt_location()[0], paths.dbt_env()
    if _preloader is not None:
        returncode, output = _preloader.run(list(args), cwd, env, on_line)
        if not quiet and on_line is None:
            sys.stdout.write(output)
            sys.stdout.flush()
    else:
        command = [sys.executable, "-m", "agent_eval.dbt_main", *args]
        if on_line is not None:
            returncode, output = _streamed(command, cwd, env, on_line)
        else:
            completed = subprocess.run(
                command,
                cwd=cwd,
                env=env,
                stdout=subprocess.PIPE if quiet else None,
                stderr=subprocess.STDOUT if quiet else None,
                text=True,
                check=False,
            )
            returncode, output = completed.returncode, completed.stdout or ""
    if returncode != 0:
        tail = ""
        if quiet and on_line is None and output:
            tail = "\n" + "\n".join(output.splitlines()[-40:])
        raise DbtFailed(f"dbt {' '.join(args)} failed with exit code {returncode}{tail}")


def _streamed(command: list[str], cwd: Path, env: dict[str, str], on_line: Callable[[str], None]) -> tuple[int, str]:
    """Run ``command``, each line of its stdout and stderr to ``on_line`` as it comes."""
    with subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            on_line(line)
    return process.returncode, ""


class _Preloader:
    """The client of one ``agent_eval.dbt_preload`` process (started on
    first use): runs dbt invocations in children forked from it, one at a
    time."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()

    def run(
        self, args: list[str], cwd: Path, env: dict[str, str], on_line: Callable[[str], None] | None = None
    ) -> tuple[int, str]:
        """dbt ``args`` in a child; (exit status, its output). With
        ``on_line``, each line of the output as the child writes it."""
        with self.lock, tempfile.NamedTemporaryFile(prefix="dbt-output-", suffix=".log") as output:
            if self.process is None or self.process.poll() is not None:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "agent_eval.dbt_preload"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    bufsize=1,
                )
            assert self.process.stdin is not None and self.process.stdout is not None
            request = {"args": args, "cwd": str(cwd), "env": env, "output": output.name}
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            if on_line is not None:
                self._follow(Path(output.name), on_line)
            answer = self.process.stdout.readline()
            if not answer:
                raise RuntimeError(f"the dbt preload process ended (exit {self.process.wait()})")
            return json.loads(answer)["returncode"], Path(output.name).read_text(errors="replace")

    def _follow(self, output: Path, on_line: Callable[[str], None]) -> None:
        """Hand over the lines of ``output`` as the child writes them, until
        its answer is ready (then the rest)."""
        assert self.process is not None and self.process.stdout is not None
        partial = ""
        with open(output, encoding="utf-8", errors="replace") as reader:
            while True:
                ready = select.select([self.process.stdout], [], [], 0.1)[0]
                *lines, partial = (partial + reader.read()).split("\n")
                for line in lines:
                    on_line(line)
                if ready or self.process.poll() is not None:
                    break
        if partial:
            on_line(partial)

    def close(self) -> None:
        if self.process is not None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait()
            self.process = None


_preloader: _Preloader | None = None


def preload_dbt(enabled: bool) -> None:
    """Run every later ``run_dbt`` in a child forked from one process that
    imported dbt once (``agent_eval.dbt_preload``), instead of a new
    interpreter per invocation: for callers that run many builds (the test
    suite). ``False`` stops that process."""
    global _preloader
    if enabled and _preloader is None:
        _preloader = _Preloader()
    elif not enabled and _preloader is not None:
        _preloader.close()
        _preloader = None


LOCK_PID = re.compile(r"\(PID (\d+)\)")


def process_command(pid: str, limit: int = 100) -> str:
    """The command line of process ``pid`` (Linux /proc), shortened; "" when unknown."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return ""
    text = " ".join(" ".join(a.decode(errors="replace").split()) for a in argv if a)  # one line
    return text if len(text) <= limit else text[: limit - 1] + "…"


def lock_path(db_path: Path) -> Path:
    """The lock file beside a working warehouse: <db>.lock."""
    return db_path.with_name(db_path.name + ".lock")


class WarehouseLock:
    """An OS lock (flock) on the lock file beside the warehouse, taken before
    anything else and held for the whole command: a second build started
    seconds after the first refuses at once, in one line, instead of
    failing inside dbt. The lock file says who holds it; the operating
    system releases the lock when its holder ends, however it ends.
    Re-entrant within a process (the demo's build, judge's publish)."""

    _held: ClassVar[dict[Path, WarehouseLock]] = {}

    def __init__(self, path: Path, handle: Any) -> None:
        self.path = path
        self.handle = handle
        self.depth = 1

    @classmethod
    def acquire(cls, db_path: Path) -> WarehouseLock | str:
        """The lock, or one line naming its holder."""
        path = lock_path(db_path).resolve()
        held = cls._held.get(path)
        if held is not None:
            held.depth += 1
            return held
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (held past this call)
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            return f"{db_path} is being built by another command ({holder}); try again when it ends"
        handle.seek(0)
        handle.truncate()
        started = datetime.now().astimezone().isoformat(timespec="seconds")
        handle.write(f"PID {os.getpid()}: {' '.join(sys.argv)[:200]}, since {started}")
        handle.flush()
        lock = cls(path, handle)
        cls._held[path] = lock
        return lock

    def release(self) -> None:
        self.depth -= 1
        if self.depth:
            return
        del self._held[self.path]
        fcntl.flock(self.handle.fileno(), fcntl.LOCK_UN)
        self.handle.close()

    def __enter__(self) -> WarehouseLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def damaged(db_path: Path) -> str | None:
    """One line when the working warehouse exists but cannot be read
    (truncated, overwritten, not a DuckDB file), with the way back; None
    when it reads (or does not exist yet, or is held by another process:
    lock_holder's to say)."""
    if not db_path.exists():
        return None
    try:
        # opening it and reading its catalogue is where a truncated or
        # overwritten file fails (the build's raw row counts come next)
        with duckdb.connect(str(db_path), read_only=True) as con:
            con.execute("select count(*) from duckdb_tables()").fetchall()
    except duckdb.Error as err:
        text = " ".join(str(err).split())
        if "lock" in text.lower() and "conflicting" in text.lower():
            return None
        return (
            f"{db_path} is damaged ({text[:200]}): move it aside and build again, which rebuilds raw history "
            f"from the drops still on disk (`mv {db_path} {db_path}.damaged && agent-eval build`); "
            "the published copy is untouched until that build publishes"
        )
    return None


def lock_holder(db_path: Path) -> str | None:
    """One line naming who holds the working database open for writing, or
    None when it is free (or does not exist yet). Asked before dbt starts: a
    second build on the same warehouse would otherwise fail only after dbt
    parsed the project, in a long traceback."""
    if not db_path.exists():
        return None
    try:
        duckdb.connect(str(db_path)).close()
    except duckdb.IOException as err:
        if "lock" not in str(err).lower():
            return None  # another problem: dbt reports it in full
        match = LOCK_PID.search(str(err))
        if match is None:
            return f"{db_path} is in use by another process; try again when it ends"
        command = process_command(match.group(1))
        who = f"PID {match.group(1)}" + (f": {command}" if command else "")
        return f"{db_path} is in use by another process ({who}); try again when it ends"
    return None


@dataclass
class BuildSummary:
    """What the build did and what the warehouse holds, for the operator."""

    drops: list[str] = field(default_factory=list)
    new_observations: dict[str, int] = field(default_factory=dict)
    rejected_files: list[tuple[str, str]] = field(default_factory=list)
    ignored_files: list[tuple[str, str]] = field(default_factory=list)
    rejected_rows: list[tuple[str, int, str]] = field(default_factory=list)
    n_rejected_rows: int = 0
    n_rows_loaded: int = 0
    sets: list[str] = field(default_factory=list)
    sets_per_agent: dict[str, int] = field(default_factory=dict)
    # False when the build stopped before its manifest step ended: what the
    # night's files were is not known (not "no new files")
    files_known: bool = True
    # this run only: rows of the files loaded by this build, sets (re)built
    n_rows_loaded_now: int = 0
    n_rows_rejected_now: int = 0
    sets_built_now: list[str] = field(default_factory=list)

    @property
    def has_rejections(self) -> bool:
        return bool(self.rejected_files or self.n_rejected_rows)


RAW_SCHEMA = "raw"
MANIFEST_TABLE = "raw_drop_files"


def raw_row_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Rows in each raw history table of rows (append-only), before a build:
    what the build adds is then exactly the rows beyond these counts, whoever
    observed their files (an interrupted build may have)."""
    return {
        table: con.execute(f'select count(*) from {RAW_SCHEMA}."{table}"').fetchone()[0]
        for table in raw_row_tables(con)
    }


def raw_row_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The raw history tables of rows: every table in schema raw with the
    lineage columns source_file and sha256, except the manifest."""
    return [
        r[0]
        for r in con.execute(
            "select table_name from duckdb_columns() where schema_name = ? and table_name <> ? "
            "and column_name in ('source_file', 'sha256') group by table_name having count(*) = 2 "
            "order by table_name",
            [RAW_SCHEMA, MANIFEST_TABLE],
        ).fetchall()
    ]


def read_summary(
    db_path: Path, since: datetime | None = None, rows_before: dict[str, int] | None = None
) -> BuildSummary:
    """Read the ops tables (read-only). Rejections are those that still
    stand: the latest observation of a path is rejected, or a current set
    has rejected rows. Files observed "this run" = observed at or after
    `since`; rows loaded and sets built this run = from the file versions
    whose raw rows this build appended (beyond ``rows_before``, the counts
    of ``raw_row_counts`` before the build; None: the versions observed
    this run), so a build after an interrupted one says what it loaded."""
    summary = BuildSummary()
    since = since or datetime.min
    with duckdb.connect(str(db_path), read_only=True) as con:
        # the file versions whose raw rows this build appended (without
        # rows_before: the versions it observed as loaded), and those it
        # restored (rows already in raw history, current again)
        if rows_before is None:
            appended = (
                "select source_file, sha256 from ops.load_log where status = 'loaded' and loaded_at >= ?",
                [since],
            )
        else:
            tables = raw_row_tables(con)
            appended = (
                " union ".join(f'select source_file, sha256 from {RAW_SCHEMA}."{t}" where rowid >= ?' for t in tables)
                or "select null, null where false",
                [rows_before.get(t, 0) for t in tables],
            )
        built = (
            appended[0] + " union select source_file, sha256 from ops.load_log "
            "where status = 'restored' and loaded_at >= ?",
            [*appended[1], since],
        )
        summary.drops = [r[0] for r in con.sql("select distinct drop_folder from ops.load_log order by 1").fetchall()]
        summary.new_observations = dict(
            con.execute(
                "select status, count(*) from ops.load_log where loaded_at >= ? group by 1 order by 1",
                [since],
            ).fetchall()
        )
        summary.rejected_files = con.sql(
            "select source_file, reject_reason from ops.rejected_files where is_latest order by source_file"
        ).fetchall()
        summary.ignored_files = con.sql(
            "select source_file, reject_reason from ops.load_log where status = 'ignored' order by source_file"
        ).fetchall()
        summary.rejected_rows = con.sql(
            "select source_file, line_number, reason_detail from ops.rejected_rows "
            "where is_current order by source_file, line_number"
        ).fetchall()
        summary.n_rejected_rows = len(summary.rejected_rows)
        summary.n_rows_loaded = con.execute(
            "select coalesce(sum(n_valid_rows), 0) from ops.file_reconciliation where is_current"
        ).fetchall()[0][0]
        summary.n_rows_loaded_now, summary.n_rows_rejected_now = con.execute(
            "select coalesce(sum(n_valid_rows), 0), coalesce(sum(n_rejected_rows), 0) "
            f"from ops.file_reconciliation where (source_file, sha256) in ({appended[0]})",
            appended[1],
        ).fetchall()[0]
        # sets, not files: an engagement run is one set of several files
        sets = con.sql("select set_id, agent from intermediate.int_history__sets order by 1").fetchall()
        summary.sets = [r[0] for r in sets]
        summary.sets_per_agent = dict(Counter(r[1] for r in sets))
        summary.sets_built_now = [
            r[0]
            for r in con.execute(
                "select distinct sets.set_id from intermediate.int_history__sets as sets "
                f"inner join ({built[0]}) as built (source_file, sha256) "
                "on built.source_file = sets.set_id or starts_with(built.source_file, sets.set_id || '/') "
                "order by 1",
                built[1],
            ).fetchall()
        ]
    return summary


STATUS_WORDS = {
    "loaded": "loaded",
    "repeat": "skipped as repeat",
    "restored": "restored",
    "rejected": "rejected",
    "ignored": "ignored",
    "removed": "removed",
}


# The summary fits one screen: lists of paths (ignored files, reports
# written) show this many, then a count and where the rest are.
MAX_LISTED = 3


def format_summary(summary: BuildSummary, max_rows: int = 20) -> str:
    files = summary.new_observations
    lines = [
        f"drops seen: {len(summary.drops)} ({', '.join(summary.drops) or 'none'})",
        "files this run: "
        + (
            "not known (the build stopped before its manifest step ended)"
            if not summary.files_known
            else ", ".join(f"{files.get(k, 0)} {word}" for k, word in STATUS_WORDS.items())
            if files
            else "no new or changed files"
        ),
        f"rows this run: {summary.n_rows_loaded_now} loaded, {summary.n_rows_rejected_now} rejected",
        f"sets built this run: {len(summary.sets_built_now)}; "
        f"in the warehouse: {len(summary.sets)} sets, {summary.n_rows_loaded} rows scored",
    ]
    if summary.sets_per_agent:
        lines.append("sets per agent: " + ", ".join(f"{a} {n}" for a, n in sorted(summary.sets_per_agent.items())))
    for path, reason in summary.rejected_files:
        lines.append(f"REJECTED FILE {path}: {reason}")
    for path, reason in summary.ignored_files[:MAX_LISTED]:
        lines.append(f"ignored file {path}: {reason}")
    if len(summary.ignored_files) > MAX_LISTED:
        lines.append(f"  ... and {len(summary.ignored_files) - MAX_LISTED} more ignored (table ops.load_log)")
    if summary.n_rejected_rows:
        lines.append(f"REJECTED ROWS in current sets: {summary.n_rejected_rows} (table ops.rejected_rows)")
        for path, line, reason in summary.rejected_rows[:max_rows]:
            lines.append(f"  {path}:{line}: {reason}")
        if summary.n_rejected_rows > max_rows:
            lines.append(f"  ... and {summary.n_rejected_rows - max_rows} more")
    return "\n".join(lines)
