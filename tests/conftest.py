"""Shared helpers: build a throw-away warehouse from a drops folder."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import importlib
import io
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from agent_eval import cli, db
from agent_eval.project import Paths, find_project_dir

# Two test workers share two cores: each worker's builds run one dbt thread
# (profiles.yml), which spends less CPU than two (docs/decisions/0058). The
# benchmark's smoke run keeps the default, so two threads are built on too.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("AGENT_EVAL_DBT_THREADS", "1")

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT_DIR = find_project_dir(Path(__file__).parent)
SAMPLE_DROPS = PROJECT_DIR / "data" / "drops"  # the bundled sample drops: fixture name "samples"
# dbt's saved parse state, shared by every test warehouse (they all name
# their file warehouse.duckdb, so dbt's state check agrees): a new warehouse
# starts from it instead of parsing the project again. dbt re-parses what
# changed since, so a stale copy is only slower; but the state holds the
# project's absolute paths (a seed's file), so each checkout of the project
# keeps its own.
PARSE_STATE = (
    Path(tempfile.gettempdir())
    / "agent-eval-tests"
    / hashlib.sha256(str(PROJECT_DIR).encode()).hexdigest()[:16]
    / "partial_parse.msgpack"
)


# The good fixtures of every imported tool (real tools' outputs under
# tests/fixtures/<tool>), in one warehouse: the session's `imported_warehouse`.
# Each tool's files keep the nights their module reads them on; a module
# that delivers a file on another night than its fixture folder says lists
# it in IMPORTED_MOVES (and in its own MOVED), so that the latest set of
# each series stays the one its flips are checked on.
IMPORTS = "imports"
IMPORTED_TOOLS = ("inspect", "promptfoo", "lm_eval", "openai_evals", "evalvault")
IMPORTED_MOVES = {
    "promptfoo/drops/2026-11-04/promptfoo/greetings_v2.json": "2026-10-31/promptfoo/greetings_v2.json",
    "openai_evals/drops/2026-10-03/openai_evals/greetings.crashed.jsonl": (
        "2026-09-30/openai_evals/greetings.crashed.jsonl"
    ),
    "evalvault/drops/2026-11-03/evalvault/insurance_summary.json": "2026-10-31/evalvault/insurance_summary.json",
}
# Every Eval Ever's files are not laid out as drops: the converted ones on
# one night, the committed ones on the next
EVERY_EVAL_EVER_NIGHTS = {"converted/data": "2026-11-01", "committed": "2026-11-02"}


def write_imported_drops(drops: Path) -> None:
    """The good fixtures of every imported tool, as drops."""
    for tool in IMPORTED_TOOLS:
        shutil.copytree(FIXTURES / tool / "drops", drops, dirs_exist_ok=True)
    for fixture_path, moved in IMPORTED_MOVES.items():
        (drops / moved).parent.mkdir(parents=True, exist_ok=True)
        (drops / fixture_path.split("/drops/", 1)[1]).rename(drops / moved)
    for folder, night in EVERY_EVAL_EVER_NIGHTS.items():
        shutil.copytree(FIXTURES / "every_eval_ever" / folder, drops / night / "every_eval_ever")


# The session's empty project: the DuckDB file of a first build of no
# drops, every agent's tables empty and the complete build's digest kept
# (agent_eval.left_out). A test warehouse's first build starts from a copy
# of it, so it leaves out the agents none of its files is for, as every
# later night of a warehouse does, instead of building all of them from
# nothing; the tables are the same either way (tests/test_left_out.py).
# Set by the session fixture ``empty_project``: a function that builds it
# once per session (shared by lock, as a snapshot) and returns its file.
EMPTY_PROJECT: Callable[[], Path] | None = None


def start_from_empty_project(db_path: Path) -> None:
    """A warehouse file ``db_path`` that does not exist yet: a copy of the
    session's empty project, so its first build leaves out the agents none
    of its files is for."""
    if db_path.exists() or EMPTY_PROJECT is None:
        return
    empty = EMPTY_PROJECT()
    assert not empty.with_name(empty.name + ".wal").exists()
    shutil.copyfile(empty, db_path)


class Warehouse:
    """A drops folder, a DuckDB file and a reports folder under tmp_path."""

    exit_code: int | None = None  # of the shared build it copies (demo_warehouse)

    def __init__(self, root: Path, *, first_build: bool = False) -> None:
        """``first_build``: the first build starts from nothing, as a
        user's first night does; else a warehouse without a DuckDB file
        starts from a copy of the session's empty project (``empty_project``)."""
        self.root = root
        self.first_build = first_build
        self.paths = Paths(
            project_dir=PROJECT_DIR,
            db_path=root / "warehouse.duckdb",
            drops_dir=root / "drops",
            reports_dir=root / "reports",
            dbt_work_dir=root / "dbt",
        )
        self.paths.drops_dir.mkdir(parents=True, exist_ok=True)
        seed_parse_state(self.paths)

    @classmethod
    def copy_of(cls, snapshot: Snapshot, root: Path) -> Warehouse:
        """A warehouse at ``root`` in the state a snapshot's build left:
        drops, DuckDB file, published copy, reports and dbt's target/ (all
        paths in them are relative, so the copy builds on as the original
        would)."""
        shutil.copytree(
            snapshot.root,
            root,
            symlinks=True,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(Snapshot.EXIT_CODE, "logs"),
        )
        return cls(root)

    @property
    def drops(self) -> Path:
        return self.paths.drops_dir

    def add_fixture(self, name: str) -> None:
        """Copy fixture drops ``tests/fixtures/<name>`` (``samples``: the bundled
        sample drops, data/drops; ``imports``: every imported tool's good
        fixtures, ``write_imported_drops``) into the drops folder."""
        if name == IMPORTS:
            write_imported_drops(self.drops)
            return
        source = SAMPLE_DROPS if name == "samples" else FIXTURES / name
        shutil.copytree(source, self.drops, dirs_exist_ok=True)

    def build(
        self, *, full_refresh: bool = False, reports: bool = False, data_tests: bool = True, unit_tests: bool = False
    ) -> int:
        """cmd_build, without dbt unit tests unless ``unit_tests``;
        ``data_tests=False`` also leaves the data tests out (for builds that
        check loading, not the tests; the saving is small, since most of a
        build's time is dbt's work per node, not the tests' queries)."""
        if not self.first_build:
            start_from_empty_project(self.paths.db_path)
        code = cli.cmd_build(
            self.paths, full_refresh=full_refresh, reports=reports, data_tests=data_tests, unit_tests=unit_tests
        )
        save_parse_state(self.paths)
        return code

    def query(self, sql: str, params: list[Any] | None = None) -> list[tuple]:
        with duckdb.connect(str(self.paths.db_path), read_only=True) as con:
            return con.execute(sql, params or []).fetchall()

    def dicts(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        with duckdb.connect(str(self.paths.db_path), read_only=True) as con:
            cursor = con.execute(sql, params or [])
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]


@contextlib.contextmanager
def session_folder(tmp_path_factory: pytest.TempPathFactory, key: str) -> Iterator[Path]:
    """``snapshots/<key>`` in the session's temporary folder (above each
    xdist worker's), held under its file lock while the caller fills it:
    the first worker to need it builds it, the other waits and reads it."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    folder = shared / "snapshots" / key
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield folder


def made_once(tmp_path_factory: pytest.TempPathFactory, key: str, done: str, make: Callable[[Path], None]) -> Path:
    """``session_folder(key)``, made by ``make(folder)`` once per session:
    ``make`` writes the file ``done`` last, so a folder without it (left
    half-made) is emptied and made again."""
    with session_folder(tmp_path_factory, key) as folder:
        if not (folder / done).is_file():
            shutil.rmtree(folder, ignore_errors=True)
            make(folder)
    return folder


class Snapshot:
    """A warehouse built once per test session from fixture drops (with
    data tests and reports), shared by every test that starts from that
    state: a test copies it instead of paying the same first build again.
    xdist workers share it through a file lock; the first to need it builds
    it, with the code under test, in this session. The demo warehouse (the
    sample drops alone, ``DEMO``) also runs the dbt unit tests, as
    `agent-eval build --unit-tests` does: one build serves the tests of the
    unit tests and every reader of the samples."""

    EXIT_CODE = "exit_code"
    DEMO = ("samples",)
    # built from nothing, not from the empty project: between them every
    # agent's models build their first night of data from nothing
    FIRST_BUILDS = (DEMO, (IMPORTS,))

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def exit_code(self) -> int:
        return int((self.root / self.EXIT_CODE).read_text())

    @classmethod
    def of(cls, tmp_path_factory: pytest.TempPathFactory, fixtures: tuple[str, ...]) -> Snapshot:

        def make(folder: Path) -> None:
            wh = Warehouse(folder, first_build=fixtures in cls.FIRST_BUILDS)
            for name in fixtures:
                wh.add_fixture(name)
            code = wh.build(reports=True, unit_tests=fixtures == cls.DEMO)
            (folder / cls.EXIT_CODE).write_text(str(code))

        return cls(made_once(tmp_path_factory, "+".join(fixtures), cls.EXIT_CODE, make))


# Modules that never run dbt: `make test-fast` (pytest -m "not dbt") runs
# them in seconds. Every other module is marked `dbt`, so a new module is
# slow until it is listed here; a test of a listed module that builds
# carries @pytest.mark.dbt itself.
FAST_MODULES = {
    "test_agents",
    "test_cli",
    "test_compare_marts",
    "test_csv_load",
    "test_docs",
    "test_engagement_ingest",
    "test_ingest",
    "test_install",
    "test_report",
    "test_set_grained_models",
    "test_suite_cost",
    "test_suspects",
}


# The modules that take longest (make test's durations), longest first.
# `make test` hands whole modules to two workers in collection order
# (--dist loadfile --no-loadscope-reorder); these are collected first, so
# no long module starts last on a worker while the other one idles. A
# name that is no module fails the suite (test_suite_cost).
LONGEST_MODULES = (
    "test_bench",
    "test_nightly_inputs",
    "test_viewer",
    "test_write_checks",
    "test_serving",
    "test_night_holds",
    "test_nightly_semantics",
    "test_history",
    "test_every_eval_ever",
    "test_bad_inputs",
    "test_openai_evals",
    "test_evaluate_cli",
)


def module_rank(name: str) -> int:
    """A module's place in collection: a listed module's rank, then every
    other module as pytest collects them."""
    return LONGEST_MODULES.index(name) if name in LONGEST_MODULES else len(LONGEST_MODULES)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.module is not None and item.module.__name__ not in FAST_MODULES:
            item.add_marker(pytest.mark.dbt)
    # a stable sort: tests keep their order within a module
    items.sort(key=lambda item: module_rank(item.module.__name__ if item.module is not None else ""))


def observe_and_load(root: Path, landing: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The loader's two steps outside dbt: the manifest's observations of
    ``root`` (parsed and landed under ``landing``) and, for each loaded
    one, the raw rows its kind's loader appends (ordered by line)."""
    from agent_eval import ingest

    out = []
    con = duckdb.connect()
    for obs in ingest.manifest_rows(root, landing=landing):
        rows: list[dict[str, Any]] = []
        if obs["status"] == "loaded":
            pending = ingest.PendingFile(obs["source_file"], obs["sha256"], obs["loaded_at"])
            relation = ingest.load_pending(con, obs["kind"], root, [pending], landing)
            rows = [dict(zip(relation.columns, values)) for values in relation.order("line_number").fetchall()]
        out.append((obs, rows))
    return out


# What dbt reads of the project (dbt_project.yml's paths): a copy holds
# these and nothing else, so a checkout's caches, tools and outputs stay out
PROJECT_FILES = ("dbt_project.yml", "profiles.yml", "selectors.yml")
PROJECT_FOLDERS = ("models", "macros", "seeds", "docs/dbt")


def copy_project(destination: Path, singular_tests: bool = False) -> Path:
    """A copy of the dbt project (to edit seeds or models on purpose);
    ``singular_tests`` also copies tests/dbt."""
    destination.mkdir(parents=True)
    for name in PROJECT_FILES:
        shutil.copy2(PROJECT_DIR / name, destination / name)
    for folder in PROJECT_FOLDERS + (("tests/dbt",) if singular_tests else ()):
        shutil.copytree(PROJECT_DIR / folder, destination / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return destination


# a table of the warehouse named in a reader's SQL
RELATION = re.compile(r"\b(?:marts|ops|rubric|staging|intermediate)\.(\w+)")
# the published file's table macros (macros/compare.sql) and the tables they read
TABLE_MACROS = {
    "compare_items": {"history_items"},
    "compare_changed_items": {"history_items"},
    "compare_metrics": {"history_items", "history_metrics"},
    "compare_pair": {"history_items", "history_metrics"},
}


@contextlib.contextmanager
def reads_recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[str]]:
    """The tables read inside the block: every reader of the warehouse
    (reports, charts, workbook, morning page, gates, viewer, evaluate) goes
    through db.fetch, which records them here."""
    read: set[str] = set()
    original = db.fetch

    def recording(con, sql, params=()):
        for name in RELATION.findall(sql):
            read.update(TABLE_MACROS.get(name, {name}))
        return original(con, sql, params)

    monkeypatch.setattr(db, "fetch", recording)
    try:
        yield read
    finally:
        monkeypatch.setattr(db, "fetch", original)


def exposure_parents(exposures_file: Path, name: str) -> set[str]:
    """The models exposure ``name`` of a YAML file depends on (its ref()s)."""
    exposures = yaml.safe_load(exposures_file.read_text(encoding="utf-8"))["exposures"]
    (exposure,) = [e for e in exposures if e["name"] == name]
    return {re.fullmatch(r"ref\('(\w+)'\)", parent).group(1) for parent in exposure["depends_on"]}


def seed_parse_state(paths: Paths) -> None:
    """Start a new warehouse's dbt target/ from the shared parse state."""
    target = paths.target_dir / "partial_parse.msgpack"
    if PARSE_STATE.is_file() and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PARSE_STATE, target)


def save_parse_state(paths: Paths) -> None:
    """Share a warehouse's parse state (atomically: workers run in parallel)."""
    source = paths.target_dir / "partial_parse.msgpack"
    if not source.is_file():
        return
    PARSE_STATE.parent.mkdir(parents=True, exist_ok=True)
    partial = PARSE_STATE.with_name(f"{PARSE_STATE.name}.{os.getpid()}")
    shutil.copyfile(source, partial)
    os.replace(partial, PARSE_STATE)


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    return Warehouse(tmp_path)


@pytest.fixture
def built(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Warehouse, int]]:
    """``built("basic", "night2")``: a copy of the session's snapshot of
    those fixture drops, built; and the exit code of that build."""

    def make(*fixtures: str) -> tuple[Warehouse, int]:
        snapshot = Snapshot.of(tmp_path_factory, fixtures)
        return Warehouse.copy_of(snapshot, tmp_path / "built"), snapshot.exit_code

    return make


def built_on_project_copy(
    tmp_path_factory: pytest.TempPathFactory, fixtures: tuple[str, ...], singular_tests: bool = False
) -> tuple[Paths, int]:
    """A snapshot's warehouse, to build on with a copy of the project (whose
    seeds or models a test edits): the copy compiles the same SQL, so the
    snapshot's reuse state and dbt's parse state carry over."""
    snapshot = Snapshot.of(tmp_path_factory, fixtures)
    root = tmp_path_factory.mktemp("on_copy")
    wh = Warehouse.copy_of(snapshot, root / "warehouse")
    project = copy_project(root / "project", singular_tests=singular_tests)
    return dataclasses.replace(wh.paths, project_dir=project), snapshot.exit_code


@pytest.fixture(scope="module")
def module_built(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Warehouse, int]]:
    """As ``built``, for a module's shared warehouse."""

    def make(*fixtures: str) -> tuple[Warehouse, int]:
        snapshot = Snapshot.of(tmp_path_factory, fixtures)
        return Warehouse.copy_of(snapshot, tmp_path_factory.mktemp("built")), snapshot.exit_code

    return make


def file_state(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def read_in_place(snapshot: Snapshot, name: str) -> Iterator[Warehouse]:
    """A shared snapshot's warehouse, for tests that only read it; fails if
    its DuckDB files changed meanwhile (a test wrote them)."""
    wh = Warehouse(snapshot.root)
    wh.exit_code = snapshot.exit_code
    files = [wh.paths.db_path, wh.paths.published_db]
    before = [file_state(path) for path in files]
    yield wh
    assert [file_state(path) for path in files] == before, f"a test wrote the shared {name}"


@pytest.fixture(scope="session")
def demo_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Warehouse]:
    """The bundled sample drops (`agent-eval demo`'s data), built once per
    session with data tests and reports, shared by every test and both
    workers, and read in place: ``.query``/``.dicts`` and the published file
    open read-only; its reports are files to read. A test that builds on it,
    renders into it or writes it otherwise takes ``demo_warehouse_copy``.
    The session fails if its DuckDB files changed (a test wrote them)."""
    yield from read_in_place(Snapshot.of(tmp_path_factory, Snapshot.DEMO), "demo_warehouse")


@pytest.fixture(scope="session")
def imported_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Warehouse]:
    """Every imported tool's good fixtures (``write_imported_drops``), built
    once per session with data tests and reports and read in place, as
    ``demo_warehouse``: the import modules' tests that only read the marts,
    reports or published file of those fixtures. Each tool's figures sit
    beside every other tool's, so an importer that disturbs another's rows
    fails there. A module that adds a night on top takes a copy
    (``module_built(IMPORTS)``, ``built(IMPORTS)``)."""
    yield from read_in_place(Snapshot.of(tmp_path_factory, (IMPORTS,)), "imported_warehouse")


@pytest.fixture
def demo_warehouse_copy(demo_warehouse: Warehouse, tmp_path: Path) -> Warehouse:
    """A test's own copy of ``demo_warehouse`` (a file copy, no dbt), to
    build on or write; ``.exit_code`` is the shared build's."""
    wh = Warehouse.copy_of(Snapshot(demo_warehouse.root), tmp_path / "demo")
    wh.exit_code = demo_warehouse.exit_code
    return wh


@pytest.fixture(scope="module")
def module_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Warehouse]:
    def make(name: str) -> Warehouse:
        return Warehouse(tmp_path_factory.mktemp(name))

    return make


@pytest.fixture(scope="session", autouse=True)
def empty_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Path]]:
    """``EMPTY_PROJECT`` for this session: built by the first worker that
    starts a warehouse, with the code under test, as a first build from
    nothing (``first_build``). A test that asks for this fixture gets the
    function itself."""
    global EMPTY_PROJECT

    def make(folder: Path) -> None:
        code = Warehouse(folder, first_build=True).build()
        (folder / Snapshot.EXIT_CODE).write_text(str(code))

    def database() -> Path:
        empty = Snapshot(made_once(tmp_path_factory, "empty-project", Snapshot.EXIT_CODE, make))
        assert empty.exit_code == cli.EXIT_OK, f"the empty project's build failed: exit {empty.exit_code}"
        return empty.root / "warehouse.duckdb"

    EMPTY_PROJECT = database
    yield database
    EMPTY_PROJECT = None


@pytest.fixture(scope="session")
def evaluation_plan(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """An evaluation cache (``AGENT_EVAL_CACHE``) holding the plan of the
    project's state, built once per session (shared by lock, as a
    snapshot), and what its build said. A test that evaluates against it
    copies the folder: the tests of `agent-eval evaluate` and the
    benchmark's smoke run, which would otherwise each build the same plan."""
    from agent_eval.agents.engagement import evaluate_plan

    said = "said.json"

    def make(folder: Path) -> None:
        notes: list[str] = []
        with pytest.MonkeyPatch.context() as env:
            env.setenv("AGENT_EVAL_CACHE", str(folder / "cache"))
            evaluate_plan.ensure_plan(PROJECT_DIR, notify=notes.append)
        (folder / said).write_text(json.dumps(notes), encoding="utf-8")

    folder = made_once(tmp_path_factory, "evaluation-plan", said, make)
    return folder / "cache", json.loads((folder / said).read_text(encoding="utf-8"))


@pytest.fixture(scope="session", autouse=True)
def preloaded_dbt() -> Any:
    """Every dbt invocation through ``runner.run_dbt`` is a fork of one
    process per worker that imported dbt once (``agent_eval.dbt_preload``):
    the same dbt, started without paying its import again (about 2.3 s of
    CPU each, over a hundred invocations). The CLI tests that start
    ``agent-eval`` as a process, and the benchmark's smoke run, still run
    dbt as a user's command does."""
    from agent_eval import runner

    runner.preload_dbt(True)
    yield
    runner.preload_dbt(False)


@pytest.fixture(scope="session", autouse=True)
def trace_dbt_invocations() -> Any:
    """With AGENT_EVAL_DBT_TRACE=<file>: one JSON line per dbt invocation
    made through ``runner.run_dbt`` (test, arguments, seconds), to count and
    weigh what the suite spends on dbt (docs/testing.md)."""
    trace = os.environ.get("AGENT_EVAL_DBT_TRACE")
    if not trace:
        yield
        return
    import json
    import time

    from agent_eval import runner

    original = runner.run_dbt

    def traced(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            record = {
                "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0],
                "args": [a for a in args[1] if not a.startswith("/")],
                "seconds": round(time.perf_counter() - started, 2),
            }
            with open(trace, "a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")

    runner.run_dbt = traced
    yield
    runner.run_dbt = original


# ---------------------------------------------------------------- nights several modules share

# The import modules whose extra nights are one shared build, by the hook
# ``shared_night`` calls in each: ``write_hostile_night(drops)`` writes its
# bad files and reruns, on nights and paths of its own; ``deliver_early``
# and ``deliver_late`` a file, then the companion it lacks a night later.
HOSTILE_NIGHT_MODULES = ("test_every_eval_ever", "test_lm_eval", "test_openai_evals")
LATE_DELIVERY_MODULES = ("test_every_eval_ever", "test_lm_eval")


@dataclasses.dataclass
class SharedNight:
    """A night built once per session from the files of several modules
    (``shared_night``), read in place: its warehouse (``.exit_code`` that
    build's), what the build wrote to stderr, and each module's files."""

    wh: Warehouse
    err: str
    written: dict[str, list[str]]

    def of_others(self, module: str) -> set[str]:
        """The files the other modules delivered on this night: what a
        module's check of the whole warehouse leaves out, and only that."""
        return {path for name, paths in self.written.items() if name != module for path in paths}


def shared_night(
    tmp_path_factory: pytest.TempPathFactory,
    on: Snapshot | None,
    modules: tuple[str, ...],
    hook: str,
    *,
    data_tests: bool = True,
) -> Snapshot:
    """A snapshot (built once per session, shared by lock as ``Snapshot.of``)
    of a copy of ``on`` (None: an empty warehouse) with a night more: the
    files each test module of ``modules`` writes with its ``hook``, built
    with reports. Each module's files go to ``written.json``, the build's stderr
    to ``stderr``."""

    def make(folder: Path) -> None:
        wh = Warehouse.copy_of(on, folder) if on else Warehouse(folder)
        written = {}
        for name in modules:
            before = {p for p in wh.drops.rglob("*") if p.is_file()}
            getattr(importlib.import_module(name), hook)(wh.drops)
            after = {p for p in wh.drops.rglob("*") if p.is_file()}
            written[name] = sorted(p.relative_to(wh.drops).as_posix() for p in after - before)
        (folder / "written.json").write_text(json.dumps(written), encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = wh.build(reports=True, data_tests=data_tests)
        (folder / "stderr").write_text(err.getvalue(), encoding="utf-8")
        (folder / Snapshot.EXIT_CODE).write_text(str(code))

    key = f"{on.root.name if on else 'empty'}+{hook}"
    return Snapshot(made_once(tmp_path_factory, key, Snapshot.EXIT_CODE, make))


def read_shared_night(snapshot: Snapshot, name: str) -> Iterator[SharedNight]:
    for wh in read_in_place(snapshot, name):
        yield SharedNight(
            wh,
            (snapshot.root / "stderr").read_text(encoding="utf-8"),
            json.loads((snapshot.root / "written.json").read_text(encoding="utf-8")),
        )


@pytest.fixture(scope="session")
def hostile_imports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedNight]:
    """Every import module's bad files (HOSTILE_NIGHT_MODULES'
    ``write_hostile_night``) as nights after ``imported_warehouse``'s good
    fixtures, one build, read in place: each module checks its own files'
    verdicts there, and a check of the whole warehouse leaves out
    ``.of_others(module)``. One build instead of one per module; the tools'
    files and series are apart, so no module's bad file decides another's
    verdict."""
    imports = Snapshot.of(tmp_path_factory, (IMPORTS,))
    night = shared_night(tmp_path_factory, imports, HOSTILE_NIGHT_MODULES, "write_hostile_night")
    yield from read_shared_night(night, "hostile_imports")


@pytest.fixture(scope="session")
def late_deliveries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SharedNight, SharedNight]]:
    """Files whose companion comes a night later (LATE_DELIVERY_MODULES'
    ``deliver_early``), built on an empty warehouse without data tests; then
    the companions (``deliver_late``) on a copy, built with them: each
    module reads its file's verdict after either night. Two builds for the
    modules together; every file of the first night is completed by the
    second, so each night's verdict is what each module's alone would be."""
    early = shared_night(tmp_path_factory, None, LATE_DELIVERY_MODULES, "deliver_early", data_tests=False)
    late = shared_night(tmp_path_factory, early, LATE_DELIVERY_MODULES, "deliver_late")
    first = read_shared_night(early, "late_deliveries (first night)")
    second = read_shared_night(late, "late_deliveries (second night)")
    yield next(first), next(second)
    for rest in (first, second):
        next(rest, None)  # the check that no test wrote them
