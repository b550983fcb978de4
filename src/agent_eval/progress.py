"""What `agent-eval build` shows while it runs: one line per stage.

The stages, in order: ``load`` (dbt starting and parsing the project, the
loaders of models/raw, the seeds), ``score`` (staging, intermediate and the
agents' marts), ``history`` (the models of the history folders), then the
Python steps ``publish`` and ``reports``, and ``gates`` (dbt's data and unit
tests, then the quality gates read back). dbt runs with its structured log
on stdout (``--log-format json``): every event that names a node says where
the node lives, which gives its stage. dbt's own lines, as it would have
printed them, go to a log file (``BUILD_LOG`` in dbt's log folder) whose
path the summary names; ``verbose`` also prints them as they come.

On a terminal the stage lines are redrawn in place (cursor movement, no
library: a handful of lines of ANSI); elsewhere (a scheduler's log, a pipe)
each stage prints one plain line when it ends.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

STAGES = ("load", "score", "history", "publish", "reports", "gates")
DBT_STAGES = ("load", "score", "history", "gates")
BUILD_LOG = "build.log"
# dbt's node statuses once a node has ended (node_info.node_status)
FAILED_STATUSES = {"error", "fail", "runtime error"}
WARNED_STATUSES = {"warn"}
SKIPPED_STATUSES = {"skipped"}
RUNNING_STATUSES = {"", "started", "compiling", "executing"}
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
REDRAW_SECONDS = 0.5
DRAW_SECONDS = 0.1
ENDED = ("done", "failed", "stopped", "skipped")
# dbt's account of what failed (the end-of-run summary, an error before any
# node ran), not its per-node lines (a failure, the nodes it skipped)
ERROR_SUMMARY = ("RunResult", "Main")
ERROR_HEAD, ERROR_TAIL = 3, 2  # lines kept of a long error (a Python model's traceback)


def stage_of(resource_type: str, path: str) -> str | None:
    """The stage of a dbt node: ``path`` is where it lives, relative to the
    project (manifest ``original_file_path``) or to its resource folder
    (events' ``node_path``). None for what is no work of a stage (exposures,
    hooks)."""
    if resource_type in ("test", "unit_test"):
        return "gates"
    if resource_type == "seed":
        return "load"
    if resource_type == "snapshot":
        return "history"
    if resource_type != "model":
        return None
    parts = PurePosixPath(path).parts
    if parts[:1] == ("models",):
        parts = parts[1:]
    if parts[:1] == ("raw",):
        return "load"
    if "history" in parts[:2]:
        return "history"
    return "score"


def stage_totals(
    target_dir: Path, *, unit_tests: bool, data_tests: bool, left_out: tuple[str, ...] = ()
) -> tuple[dict[str, int], int] | None:
    """(nodes per stage, nodes dbt counts) of a `dbt build` of the whole
    project (selector nightly; ``unit_tests``: everything) but the folders
    ``left_out`` (relative to the project: agent_eval.left_out), from the
    nodes dbt's parse wrote before any node runs (``dbt_main.NODES_FILE``,
    else dbt's own manifest.json, written then when dbt is not started by
    agent_eval.dbt_main); None when neither can be read. dbt's count
    includes the exposures (no stage's work), so the caller can check the
    two agree before trusting these totals."""
    from agent_eval.dbt_main import NODES_FILE

    nodes_file = target_dir / NODES_FILE
    try:
        document = json.loads(
            (nodes_file if nodes_file.is_file() else target_dir / "manifest.json").read_text(encoding="utf-8")
        )
        nodes = list(document["nodes"].values())
        if unit_tests:
            nodes += list(document.get("unit_tests", {}).values())
        n_exposures = sum(
            not any(e.get("original_file_path", "").startswith(folder + "/") for folder in left_out)
            for e in document.get("exposures", {}).values()
        )
    except (OSError, ValueError, KeyError, AttributeError):
        return None
    totals = dict.fromkeys(DBT_STAGES, 0)
    counted = n_exposures
    for node in nodes:
        kind = node.get("resource_type", "")
        if kind == "model" and node.get("config", {}).get("materialized") == "ephemeral":
            continue  # inlined into its readers: never run
        if kind == "test" and not data_tests:
            continue
        path = node.get("original_file_path", "")
        if any(path.startswith(folder + "/") for folder in left_out):
            continue
        stage = stage_of(kind, path)
        if stage is None:
            continue
        totals[stage] += 1
        counted += 1
    return totals, counted


@dataclass
class Stage:
    name: str
    total: int | None = None  # nodes expected (dbt stages), when known
    done: int = 0
    reused: int = 0
    skipped: int = 0
    failed: list[str] = field(default_factory=list)
    warned: list[str] = field(default_factory=list)
    started: float | None = None
    ended: float | None = None
    extra_seconds: float = 0.0  # a Python step after dbt's part (gates)
    state: str = "waiting"  # waiting, running, then one of ENDED
    detail: str = ""

    def seconds(self, now: float) -> float | None:
        if self.started is None:
            return None
        return (self.ended if self.ended is not None else now) - self.started + self.extra_seconds


def dbt_text(event: dict[str, Any]) -> str:
    """An event of dbt's JSON log as dbt's text log prints it: local time, two
    spaces, the message."""
    info = event.get("info", {})
    try:
        stamp = datetime.fromisoformat(info["ts"].replace("Z", "+00:00")).astimezone().strftime("%H:%M:%S")
    except (KeyError, ValueError, AttributeError):
        stamp = "--:--:--"
    return f"{stamp}  {info.get('msg', '')}"


class BuildProgress:
    """The stage lines of one build, and dbt's log file.

    ``live``: redraw the lines in place (a terminal); else print each
    stage's line once, when it ends. ``verbose``: dbt's lines also go to
    ``out`` as they come (plain stage lines then, never redrawn over)."""

    def __init__(
        self,
        out: TextIO,
        log_path: Path,
        *,
        live: bool,
        verbose: bool = False,
        totals: Callable[[], tuple[dict[str, int], int] | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out
        self.log_path = log_path
        self.live = live and not verbose
        self.verbose = verbose
        self.colour = live  # a terminal shows dbt's colours; a file gets none
        self.totals = totals
        self.clock = clock
        self.stages = {name: Stage(name) for name in STAGES}
        self.seen: set[str] = set()
        self.errors: list[str] = []  # dbt's error lines, for the failure message
        self.lock = threading.RLock()
        self.drawn = 0  # lines of the block on screen
        self.last_drawn = float("-inf")
        self.printed: set[str] = set()
        self.log: TextIO | None = None
        self.ticker: threading.Thread | None = None
        self.stopped = threading.Event()

    # ---------- the whole build

    def start(self) -> None:
        """Open the log file, start the load stage (dbt starting), draw."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115 (closed by close())
        with self.lock:
            self._begin(self.stages["load"], self.clock())
            self.stages["load"].detail = "starting dbt, parsing the project"
            self._draw()
        if self.live:
            self.ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
            self.ticker.start()

    def close(self) -> None:
        self.stopped.set()
        if self.ticker is not None:
            self.ticker.join()
            self.ticker = None
        with self.lock:
            self._draw()
        if self.log is not None:
            self.log.close()
            self.log = None

    def _tick(self) -> None:
        while not self.stopped.wait(REDRAW_SECONDS):
            with self.lock:
                self._draw()

    # ---------- dbt's part

    def dbt_line(self, line: str) -> None:
        """One line of dbt's stdout: an event of its JSON log, or anything
        else a process may print (a traceback), kept as it is."""
        line = line.rstrip("\n")
        try:
            event = json.loads(line)
            text = dbt_text(event) if isinstance(event, dict) and "info" in event else None
        except ValueError:
            event, text = None, None
        if text is None:
            event, text = None, line
        if self.log is not None:
            self.log.write(ANSI.sub("", text) + "\n")
            self.log.flush()
        with self.lock:
            if self.verbose:
                self.out.write((text if self.colour else ANSI.sub("", text)) + "\n")
                self.out.flush()
            if event is not None:
                self._event(event)
                # hundreds of events a second: a terminal is redrawn at most
                # every DRAW_SECONDS (the ticker draws what is left)
                if not self.live or self.clock() - self.last_drawn >= DRAW_SECONDS:
                    self._draw()

    def _event(self, event: dict[str, Any]) -> None:
        info, data = event.get("info", {}), event.get("data", {})
        if info.get("level") == "error" and str(info.get("name", "")).startswith(ERROR_SUMMARY):
            self.errors.append(ANSI.sub("", str(info.get("msg", ""))))
        if info.get("name") == "LogStartLine" and self.totals is not None:
            self._set_totals(data.get("total"))
            self.totals = None  # once: the manifest is read at the first node
        node = data.get("node_info") or {}
        stage_name = stage_of(node.get("resource_type", ""), node.get("node_path", ""))
        if stage_name is None:
            return
        stage, now = self.stages[stage_name], self.clock()
        load = self.stages["load"]
        if load.detail.startswith("starting dbt"):
            load.detail = ""
        if stage.state == "waiting":
            self._begin(stage, now)
        status = str(node.get("node_status", "")).lower()
        uid = node.get("unique_id", "")
        if status in RUNNING_STATUSES or uid in self.seen:
            return
        self.seen.add(uid)
        stage.done += 1
        if str(data.get("status", "")).upper() == "REUSED":
            stage.reused += 1
        name = node.get("node_name") or uid.split(".")[-1]
        if status in FAILED_STATUSES:
            stage.failed.append(name)
        elif status in WARNED_STATUSES:
            stage.warned.append(name)
        elif status in SKIPPED_STATUSES:
            stage.skipped += 1
        if stage.total is not None and stage.done >= stage.total:
            self._end_dbt_stage(stage, now)

    def _set_totals(self, dbt_total: Any) -> None:
        found = self.totals() if self.totals is not None else None
        if found is None or found[1] != dbt_total:
            return  # not the selection these totals describe: stages end with dbt
        for name, total in found[0].items():
            self.stages[name].total = total
            if total == 0 and name != "gates":
                self.stages[name].state = "skipped"
                self.stages[name].detail = "nothing to run"

    def dbt_done(self, ok: bool = True) -> None:
        """dbt has ended (``ok``: without failing): its stages end, those it
        stopped before they ended too."""
        with self.lock:
            now = self.clock()
            for name in DBT_STAGES:
                stage = self.stages[name]
                if stage.state not in ("waiting", "running"):
                    continue
                if name == "gates" and (stage.state == "waiting" or stage.ended is not None):
                    continue  # no test ran, or the tests ended: the quality gates come after the reports
                incomplete = stage.total is not None and stage.done < stage.total
                self._end_dbt_stage(stage, now)
                if not ok and not stage.failed and (incomplete or stage.done == 0):
                    stage.state = "stopped"
            self._draw()

    def _end_dbt_stage(self, stage: Stage, now: float) -> None:
        if stage.started is None:
            stage.started = now
        stage.ended = now
        stage.detail = self._nodes_detail(stage)
        if stage.name == "gates":
            return  # still running: the quality gates come after the reports
        stage.state = "failed" if stage.failed else "done"

    @staticmethod
    def _nodes_detail(stage: Stage) -> str:
        noun = "tests" if stage.name == "gates" else "nodes"
        counted = f"{stage.done}/{stage.total}" if stage.total is not None else f"{stage.done}"
        parts = [f"{stage.reused} reused"] if stage.reused else []
        if stage.skipped:
            parts.append(f"{stage.skipped} skipped")
        for word, names in (("failed", stage.failed), ("warned", stage.warned)):
            if names:
                parts.append(f"{len(names)} {word}: {', '.join(names[:3])}{', ...' if len(names) > 3 else ''}")
        return f"{counted} {noun}" + (f" ({'; '.join(parts)})" if parts else "")

    def error_lines(self, limit: int) -> list[str]:
        """dbt's errors for a failure message, at most ``limit`` lines: a
        long one (a traceback) cut to its first and last lines, where a
        Python model's exception says what and where."""
        lines: list[str] = []
        for error in self.errors:
            text = [line for line in error.splitlines() if line.strip()]
            if len(text) > ERROR_HEAD + ERROR_TAIL + 1:
                text = [*text[:ERROR_HEAD], "  ...", *text[-ERROR_TAIL:]]
            lines += text
        if len(lines) > limit:
            lines = [*lines[:limit], f"... ({len(lines) - limit} more lines in {self.log_path})"]
        return lines

    # ---------- the Python steps

    def begin(self, name: str, detail: str = "") -> None:
        with self.lock:
            stage = self.stages[name]
            if stage.started is None:
                self._begin(stage, self.clock())
            else:  # gates: its dbt part is over, the quality gates run now
                stage.state, stage.extra_seconds = "running", stage.extra_seconds - self.clock()
            stage.detail = detail or stage.detail
            self._draw()

    def finish(self, name: str, detail: str, failed: bool = False) -> None:
        with self.lock:
            stage, now = self.stages[name], self.clock()
            if stage.started is None:
                self._begin(stage, now)
            if stage.extra_seconds < 0:
                stage.extra_seconds += now
            elif stage.ended is None:
                stage.ended = now
            if name == "gates" and stage.done:
                detail = f"{self._nodes_detail(stage)}; {detail}"
            stage.state, stage.detail = ("failed" if failed else "done"), detail
            self._draw()

    def skip(self, name: str, why: str) -> None:
        with self.lock:
            stage = self.stages[name]
            if name == "gates" and stage.done:
                stage.state, stage.detail = "done", f"{self._nodes_detail(stage)}; quality gates not read ({why})"
            else:
                stage.state, stage.detail = "skipped", why
            self._draw()

    @staticmethod
    def _begin(stage: Stage, now: float) -> None:
        stage.state, stage.started = "running", now

    # ---------- drawing

    def line(self, stage: Stage, now: float) -> str:
        seconds = stage.seconds(now)
        elapsed = f"{seconds:5.1f}s" if seconds is not None and stage.state != "skipped" else ""
        detail = stage.detail
        if stage.state == "running" and stage.name in DBT_STAGES and not detail:
            detail = self._nodes_detail(stage)
        return f"  {stage.name:<8} {stage.state:<8} {elapsed:>7}  {detail}".rstrip()

    def _draw(self) -> None:
        now = self.clock()
        if not self.live:
            for stage in self.stages.values():
                if stage.state in ENDED and stage.name not in self.printed:
                    # in stage order: a later stage that ended first waits for the earlier ones
                    earlier = STAGES[: STAGES.index(stage.name)]
                    if all(name in self.printed for name in earlier):
                        self.printed.add(stage.name)
                        self.out.write(self.line(stage, now) + "\n")
            self.out.flush()
            return
        width = max(20, shutil.get_terminal_size((100, 24)).columns - 1)
        lines = [self.line(stage, now)[:width] for stage in self.stages.values()]
        up = f"\x1b[{self.drawn}F" if self.drawn else ""
        self.out.write(up + "".join(f"\x1b[2K{text}\n" for text in lines))
        self.out.flush()
        self.drawn = len(lines)
        self.last_drawn = now
