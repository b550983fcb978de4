"""Serving analysts and BI tools: the published DuckDB file and
Parquet, read by real reader processes, DuckDB 1.0 (the oldest reader promised), SQLAlchemy and polars;
the contract every public mart is held to. Generic: every check walks the
dbt manifest or the published file, so a new mart is covered with no edit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from agent_eval import publish, registry
from agent_eval.cli import EXIT_FAILED, EXIT_REJECTED
from agent_eval.project import Paths
from conftest import PROJECT_DIR, Snapshot, Warehouse

BASIC = "2026-11-01/resume_agent_basic.csv"
NIGHT2 = "2026-11-02/resume_agent_basic.csv"
NIGHT3 = "2026-11-03/resume_agent_basic.csv"


# --------------------------------------------------------------- helpers


def run_python(code: str, *args: str, python: str | Path = sys.executable) -> Any:
    """Run `code` in a separate process; it prints one JSON document."""
    done = subprocess.run(
        [str(python), "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def published_counts(db_path: Path) -> dict[str, int]:
    """ops.published_tables of a published file: 'schema.table' -> rows."""
    with duckdb.connect(str(db_path), read_only=True) as con:
        rows = con.execute("select schema_name, table_name, n_rows from ops.published_tables").fetchall()
    return {f"{s}.{t}": n for s, t, n in rows}


def manifest_of(wh: Warehouse) -> dict[str, Any]:
    return json.loads((wh.paths.target_dir / "manifest.json").read_text(encoding="utf-8"))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# A reader's view of one published file: every table's rows counted against
# ops.published_tables (a partial file would disagree), every row read, and
# which sets it holds.
SNAPSHOT = """
def snapshot(con):
    tables = con.execute(
        "select schema_name, table_name, n_rows, published_at::varchar "
        "from ops.published_tables order by 1, 2").fetchall()
    bad = []
    for schema, table, n_rows, _ in tables:
        rows = con.execute(f'select * from "{schema}"."{table}"').fetchall()
        if len(rows) != n_rows:
            bad.append(f"{schema}.{table}: {len(rows)} rows, published {n_rows}")
    sets = [r[0] for r in con.execute("select set_id from marts.resume_set_scores order by 1").fetchall()]
    item_sets = [r[0] for r in con.execute(
        "select distinct set_id from marts.resume_item_scores order by 1").fetchall()]
    if sets != item_sets:
        bad.append(f"sets {sets} != item sets {item_sets}")
    return {"published_at": tables[0][3], "sets": sets, "bad": bad, "n_tables": len(tables)}
"""


class HeldReader:
    """A separate process holding one read-only connection to the published
    file open (like a dashboard); each `snapshot()` re-reads through it."""

    CODE = (
        SNAPSHOT
        + """
import duckdb, json, sys
con = duckdb.connect(sys.argv[1], read_only=True)
for line in sys.stdin:
    print(json.dumps(snapshot(con)), flush=True)
"""
    )

    def __init__(self, db_path: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", self.CODE, str(db_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.first = self.snapshot()

    def snapshot(self) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write("snapshot\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"reader died: {self.proc.stderr.read() if self.proc.stderr else ''}"
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)
        assert self.proc.returncode == 0


class LoopingReader:
    """A separate process that, until told to stop, keeps opening the
    published file (new connection each time, like a BI tool reconnecting)
    and the Parquet folders, and records every error or inconsistency."""

    CODE = (
        SNAPSHOT
        + """
import duckdb, json, os, sys, time
db, parquet, stop, ready = sys.argv[1:5]
seen, errors, n = [], [], 0
while True:
    last = os.path.exists(stop)
    n += 1
    try:
        with duckdb.connect(db, read_only=True) as con:
            snap = snapshot(con)
        errors += snap["bad"]
        if not seen or seen[-1]["published_at"] != snap["published_at"]:
            seen.append(snap)
        # Parquet: resolve the link once, then every table from that version
        root = os.path.realpath(parquet)
        con = duckdb.connect()
        counts = con.execute(
            "select schema_name, table_name, n_rows from "
            f"read_parquet('{root}/published_tables/*.parquet')").fetchall()
        for schema, table, n_rows in counts:
            got = con.execute(f"select count(*) from read_parquet('{root}/{table}/*.parquet')").fetchone()[0]
            if got != n_rows:
                errors.append(f"parquet {table}: {got} rows, published {n_rows}")
        # and through the link itself, as a tool given the path would
        con.execute(f"select * from read_parquet('{parquet}/resume_set_scores/*.parquet')").fetchall()
        con.close()
    except Exception as err:
        errors.append(repr(err))
    if n == 1:
        open(ready, "w").close()
    if last:
        break
    time.sleep(0.5)  # a gentle reader: the build shares the CPU
print(json.dumps({"seen": seen, "errors": errors, "iterations": n}))
"""
    )

    def __init__(self, db_path: Path, parquet_dir: Path, work_dir: Path) -> None:
        self.stop_file = work_dir / "stop"
        ready = work_dir / "ready"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", self.CODE, str(db_path), str(parquet_dir), str(self.stop_file), str(ready)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while not ready.exists():  # its first look is at the file before the build
            assert self.proc.poll() is None and time.monotonic() < deadline, "looping reader did not start"
            time.sleep(0.1)

    def stop(self) -> dict[str, Any]:
        self.stop_file.touch()
        out, err = self.proc.communicate(timeout=120)
        assert self.proc.returncode == 0, err[-3000:]
        return json.loads(out.strip().splitlines()[-1])


def sets_seen_by_a_new_process(db_path: Path) -> list[str]:
    return run_python(
        """
        import duckdb, json, sys
        with duckdb.connect(sys.argv[1], read_only=True) as con:
            print(json.dumps([r[0] for r in con.sql("select set_id from marts.resume_set_scores order by 1").fetchall()]))
        """,
        str(db_path),
    )


# ------------------------------------------------- readers during builds


@dataclasses.dataclass
class ReadersScenario:
    """What the readers saw of night 2's build and of a failing build after
    it, on a copy of the basic snapshot (built once, by the module)."""

    wh: Warehouse
    first_code: int
    first_sets: list[str]
    held_first: dict[str, Any]
    night2_code: int
    night2_out: str
    held_during: dict[str, Any]
    sets_after_night2: list[str]
    held2_first: dict[str, Any]
    failed_code: int
    failed_out: str
    failed_err: str
    published_before_failed: tuple[str, str]
    published_after_failed: tuple[str, str]
    leftovers: list[str]
    held_after_failed: dict[str, Any]
    held2_after_failed: dict[str, Any]
    sets_after_failed: list[str]
    looping: dict[str, Any]


def build_captured(wh: Warehouse) -> tuple[int, str, str]:
    """A build, with what it printed (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = wh.build()
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def readers(module_built, tmp_path_factory) -> Iterator[tuple[ReadersScenario, Warehouse]]:
    """Night 2 built and published while a held and a looping reader use
    the published file, then a failing build (a mart lost rows) while a
    second reader holds the new file; and, between the two builds, a file
    copy of the warehouse night 2 left: the module's ``served`` warehouse,
    so the module pays one build of basic and night 2, not two."""
    wh, first_code = module_built("basic")
    paths = wh.paths
    first_sets = sets_seen_by_a_new_process(paths.published_db)
    held = HeldReader(paths.published_db)
    looping = LoopingReader(paths.published_db, paths.published_parquet, tmp_path_factory.mktemp("looping"))

    wh.add_fixture("night2")
    night2_code, night2_out, _ = build_captured(wh)
    held_during = held.snapshot()
    sets_after_night2 = sets_seen_by_a_new_process(paths.published_db)
    served = Warehouse.copy_of(Snapshot(wh.root), tmp_path_factory.mktemp("served"))

    held2 = HeldReader(paths.published_db)
    before = (sha256(paths.published_db), os.readlink(paths.published_parquet))
    with duckdb.connect(str(paths.db_path)) as con:
        con.execute("delete from marts.resume_item_scores where set_id = ? and line_number = 2", [NIGHT2])
    night3 = wh.drops / NIGHT3
    night3.parent.mkdir()
    shutil.copy(wh.drops / BASIC, night3)
    failed_code, failed_out, failed_err = build_captured(wh)
    scenario = ReadersScenario(
        wh=wh,
        first_code=first_code,
        first_sets=first_sets,
        held_first=held.first,
        night2_code=night2_code,
        night2_out=night2_out,
        held_during=held_during,
        sets_after_night2=sets_after_night2,
        held2_first=held2.first,
        failed_code=failed_code,
        failed_out=failed_out,
        failed_err=failed_err,
        published_before_failed=before,
        published_after_failed=(sha256(paths.published_db), os.readlink(paths.published_parquet)),
        leftovers=[p.name for p in paths.publish_dir.iterdir() if ".tmp" in p.name or ".link" in p.name],
        held_after_failed=held.snapshot(),
        held2_after_failed=held2.snapshot(),
        sets_after_failed=[],
        looping={},
    )
    held.close()
    held2.close()
    scenario.sets_after_failed = sets_seen_by_a_new_process(paths.published_db)
    scenario.looping = looping.stop()
    yield scenario, served


def test_readers_hold_the_published_file_through_a_build_and_a_failed_build(readers):
    seen, _ = readers
    paths = seen.wh.paths
    assert seen.first_code == EXIT_REJECTED  # basic holds deliberate bad rows
    assert seen.first_sets == [BASIC]
    assert seen.held_first["sets"] == [BASIC] and seen.held_first["bad"] == []

    # night 2 is built and published while both readers use the file
    assert seen.night2_code == EXIT_REJECTED  # basic holds deliberate bad rows
    # the operator's summary. night2: one file, 4 records, all valid (QA, QB
    # x rounds 1/1, 2/1). basic (16 records, see test_resume_end_to_end.py):
    # 14 scored + 2 rejected, still current. In the warehouse: 14 + 4 = 18.
    out = seen.night2_out.split("== summary ==")[1]
    assert "files this run: 1 loaded, 0 skipped as repeat, 0 restored, 0 rejected, 0 ignored" in out
    assert "rows this run: 4 loaded, 0 rejected" in out
    assert "sets built this run: 1; in the warehouse: 2 sets, 18 rows scored" in out
    assert "REJECTED ROWS in current sets: 2" in out
    assert f"published: {paths.published_db} (" in out
    assert f"parquet:   {paths.published_parquet}/<table>/data.parquet" in out
    assert seen.held_during == seen.held_first  # the open reader keeps its complete old snapshot
    assert seen.sets_after_night2 == [BASIC, NIGHT2]

    # a failing build (a data test fails: rows went missing from a mart)
    # publishes nothing, while a second reader also holds the new file
    assert seen.held2_first["sets"] == [BASIC, NIGHT2] and seen.held2_first["bad"] == []
    assert seen.failed_code == EXIT_FAILED
    assert f"published: nothing; {paths.published_db} is unchanged" in seen.failed_out
    assert "agent-eval: FAILED (exit 1): dbt build" in seen.failed_err
    assert seen.published_after_failed == seen.published_before_failed
    assert seen.leftovers == []
    assert seen.held_after_failed == seen.held_first
    assert seen.held2_after_failed == seen.held2_first
    assert seen.sets_after_failed == [BASIC, NIGHT2]

    result = seen.looping
    assert result["errors"] == []
    # it saw night 1 (until the publish) and night 2, each complete
    assert [s["sets"] for s in result["seen"]] == [[BASIC], [BASIC, NIGHT2]]
    assert result["iterations"] > len(result["seen"])


# ----------------------------------------------- the published copy itself


@pytest.fixture(scope="module")
def served(readers) -> Warehouse:
    """The warehouse night 2 left under the readers (basic, then night 2,
    each built and published), copied before the failing build."""
    seen, wh = readers
    assert seen.first_code == seen.night2_code == EXIT_REJECTED  # basic holds deliberate bad rows
    return wh


def test_published_tables_equal_the_working_tables_and_the_parquet(served):
    relations = publish.published_relations(manifest_of(served))
    assert {r.schema for r in relations} == set(publish.PUBLISHED_SCHEMAS)
    counts = published_counts(served.paths.published_db)
    assert set(counts) == {r.qualified for r in relations} | {"ops.published_tables"}
    with duckdb.connect(str(served.paths.published_db), read_only=True) as con:
        con.execute(f"attach '{served.paths.db_path}' as work (read_only)")
        for rel in relations:
            table = f'"{rel.schema}"."{rel.name}"'
            parquet = f"read_parquet('{served.paths.published_parquet}/{rel.name}/*.parquet')"
            n_work = con.execute(f"select count(*) from work.{table}").fetchone()[0]
            assert counts[rel.qualified] == n_work, rel.qualified
            for other in (f"work.{table}", parquet):
                diff = con.execute(
                    f"select count(*) from ((from {table} except all from {other}) "
                    f"union all (from {other} except all from {table}))"
                ).fetchone()[0]
                assert diff == 0, f"{rel.qualified} differs from {other}"
        assert sum(counts[r.qualified] for r in relations if r.schema == "marts") > 0
        # descriptions travel with the file, for BI tools that show them
        undocumented = con.execute(
            "select table_name, column_name from duckdb_columns() "
            "where database_name = current_database() and schema_name = 'marts' "
            "and coalesce(comment, '') = ''"
        ).fetchall()
        assert undocumented == []


def test_published_file_and_public_marts_use_bi_safe_types_only(served):
    with duckdb.connect(str(served.paths.published_db), read_only=True) as con:
        columns = con.execute(
            "select schema_name, table_name, column_name, data_type from duckdb_columns() "
            "where database_name = current_database()"
        ).fetchall()
    assert {c[0] for c in columns} == set(publish.PUBLISHED_SCHEMAS)
    assert publish.type_problems(columns) == []
    # and what the contracts declare (a contract change is a deliberate edit)
    declared = [
        ("marts", node["name"], name, col.get("data_type") or "")
        for node in manifest_of(served)["nodes"].values()
        if node["resource_type"] == "model" and node["schema"] == "marts"
        for name, col in node["columns"].items()
    ]
    assert declared and publish.type_problems([(*c[:3], c[3].upper()) for c in declared]) == []


def test_unsafe_types_are_named():
    columns = [
        ("marts", "t", "n", "BIGINT"),
        ("marts", "t", "d", "DECIMAL(18,3)"),
        ("marts", "t", "total", "HUGEINT"),
        ("marts", "t", "u", "UBIGINT"),
        ("marts", "t", "tags", "VARCHAR[]"),
        ("marts", "t", "s", "STRUCT(a INTEGER)"),
        ("marts", "t", "m", "MAP(VARCHAR, INTEGER)"),
        ("marts", "t", "j", "JSON"),
        ("marts", "t", "x", "UNION(a INTEGER, b VARCHAR)"),
    ]
    problems = publish.type_problems(columns)
    assert [p.split(" ")[0] for p in problems] == [
        "marts.t.total",
        "marts.t.u",
        "marts.t.tags",
        "marts.t.s",
        "marts.t.m",
        "marts.t.j",
        "marts.t.x",
    ]


OLDEST_READER = "duckdb==1.0.0"  # the oldest DuckDB the published file promises to open


def old_duckdb_python(requirement: str = OLDEST_READER) -> Path:
    """A virtualenv with an older DuckDB from PyPI, made once under a cache
    folder and reused by later runs."""
    cache = Path(os.environ.get("AGENT_EVAL_TEST_CACHE") or Path.home() / ".cache" / "agent-eval-tests")
    name = requirement.replace("==", "-")
    venv = cache / f"{name}-venv"
    python = venv / "bin" / "python"
    marker = venv / "installed.txt"
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f"{name}-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist workers wait for one another
        if not marker.is_file():
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run(
                [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", requirement],
                check=True,
            )
            marker.write_text(requirement + "\n", encoding="utf-8")
    return python


def test_published_file_opens_in_the_oldest_duckdb_promised(served):
    """Storage format v1.0.0: DuckDB 1.0 (2024) and every later release open
    it (the Metabase DuckDB drivers embed 1.4), with every table, view, row
    and comment."""
    result = run_python(
        """
        import duckdb, json, sys
        with duckdb.connect(sys.argv[1], read_only=True) as con:
            counts = {}
            relations = con.sql(
                "select schema_name, table_name from duckdb_tables() union all "
                "select schema_name, view_name from duckdb_views() where not internal"
            ).fetchall()
            for schema, table in relations:
                counts[f"{schema}.{table}"] = len(con.sql(f'select * from "{schema}"."{table}"').fetchall())
            comments = con.sql("select count(*) from duckdb_columns() where comment is not null").fetchone()[0]
        print(json.dumps({"version": duckdb.__version__, "counts": counts, "comments": comments}))
        """,
        str(served.paths.published_db),
        python=old_duckdb_python(),
    )
    assert result["version"] == OLDEST_READER.split("==")[1]
    assert result["counts"] == published_counts(served.paths.published_db)
    with duckdb.connect(str(served.paths.published_db), read_only=True) as con:
        comments = con.execute("select count(*) from duckdb_columns() where comment is not null").fetchone()[0]
    assert result["comments"] == comments > 100


def test_sqlalchemy_reflects_and_reads_every_published_table_and_view(served):
    result = run_python(
        """
        import json, sys, warnings
        from sqlalchemy import MetaData, create_engine, inspect, select
        from sqlalchemy.types import NullType
        warnings.simplefilter("ignore")  # duckdb-engine: no index reflection
        engine = create_engine(f"duckdb:///{sys.argv[1]}", connect_args={"read_only": True})
        out = {}
        inspector = inspect(engine)
        for schema in inspector.get_schema_names():
            name = schema.split(".")[-1]
            if not schema.startswith(sys.argv[2] + ".") or name in ("main", "information_schema"):
                continue
            # every table and view of the schema, reflected in one pass (a
            # table at a time asks the catalog again for each)
            metadata = MetaData()
            metadata.reflect(bind=engine, schema=name, views=True)
            for table in metadata.tables.values():
                with engine.connect() as con:
                    rows = con.execute(select(table)).fetchall()
                out[f"{name}.{table.name}"] = {
                    "rows": len(rows),
                    "columns": [c.name for c in table.columns],
                    "untyped": [c.name for c in table.columns if isinstance(c.type, NullType)],
                    "commented": table.comment is not None,
                }
        print(json.dumps(out))
        """,
        str(served.paths.published_db),
        served.paths.published_db.stem,
    )
    counts = published_counts(served.paths.published_db)
    assert {name: t["rows"] for name, t in result.items()} == counts
    with duckdb.connect(str(served.paths.published_db), read_only=True) as con:
        for name, table in result.items():
            assert table["untyped"] == [], name
            assert table["commented"], name
            assert table["columns"] == [d[0] for d in con.sql(f"select * from {name} limit 0").description]


def test_polars_reads_every_parquet_table(served):
    counts = published_counts(served.paths.published_db)
    folders = sorted(p.name for p in served.paths.published_parquet.iterdir())
    assert folders == sorted(name.split(".")[1] for name in counts)
    with duckdb.connect(str(served.paths.published_db), read_only=True) as con:
        for name, n_rows in counts.items():
            frame = pl.read_parquet(served.paths.published_parquet / name.split(".")[1] / "*.parquet")
            assert frame.height == n_rows, name
            assert frame.columns == [d[0] for d in con.sql(f"select * from {name} limit 0").description]
            nested = [c for c, t in frame.schema.items() if t.is_nested() or t == pl.Object]
            assert nested == [], name


# ----------------------------------------------- contracts, docs, exposures

GRAIN = re.compile(r"^One row per \S", re.IGNORECASE)


def test_every_public_mart_holds_its_contract(served):
    manifest = manifest_of(served)
    marts = [n for n in manifest["nodes"].values() if n["resource_type"] == "model" and n["schema"] == "marts"]
    assert marts
    problems = []
    for node in marts:
        name = node["name"]
        if not node["config"].get("contract", {}).get("enforced"):
            problems.append(f"{name}: contract not enforced")
        if not GRAIN.match(node["description"].strip()):
            problems.append(f"{name}: description must state the grain first ('One row per ...')")
        if not node["columns"]:
            problems.append(f"{name}: no columns declared")
        for column, col in node["columns"].items():
            if not col.get("data_type"):
                problems.append(f"{name}.{column}: no data_type")
            if not (col.get("description") or "").strip():
                problems.append(f"{name}.{column}: no description")
        # the primary key: a grain checked on every write (macros/write_checks.sql)
        grain = (node["config"].get("meta") or {}).get("grain") or []
        if not grain or not set(grain) <= set(node["columns"]):
            problems.append(f"{name}: no grain of declared columns in config.meta.grain")
    assert problems == []


def test_every_report_renderer_is_declared_as_an_exposure(served):
    manifest = manifest_of(served)
    exposures = manifest["exposures"].values()
    published_ids = {
        node["unique_id"]
        for node in manifest["nodes"].values()
        if node["resource_type"] in ("model", "seed") and node["schema"] in publish.PUBLISHED_SCHEMAS
    }
    declared = {e["config"]["meta"].get("agent") for e in exposures}
    assert {agent.name for agent in registry.registered()} <= declared
    for exposure in exposures:
        assert exposure["description"].strip(), exposure["name"]
        parents = exposure["depends_on"]["nodes"]
        assert parents, exposure["name"]
        # what readers of the published file see is published; `evaluate`
        # reads a scratch warehouse of its own (its exposure says so)
        if exposure["config"]["meta"].get("reads") != "scratch warehouse":
            assert set(parents) <= published_ids, exposure["name"]


# ------------------------------------------------ publish without dbt


def fake_manifest(*tables: tuple[str, str]) -> dict[str, Any]:
    return {
        "metadata": {"project_name": "agent_eval", "invocation_id": "test"},
        "nodes": {
            f"model.agent_eval.{name}": {
                "resource_type": "model",
                "package_name": "agent_eval",
                "schema": schema,
                "name": name,
                "alias": name,
                "description": f"One row per {name}.",
                "columns": {"n": {"description": "A number."}},
                "config": {"materialized": "table", "contract": {"enforced": True}},
            }
            for schema, name in tables
        }
        | {
            "model.agent_eval.stg_x": {
                "resource_type": "model",
                "package_name": "agent_eval",
                "schema": "staging",
                "name": "stg_x",
                "alias": "stg_x",
                "description": "",
                "columns": {},
                "config": {"materialized": "view"},
            }
        },
    }


def test_a_refused_publish_leaves_the_served_files_as_they_were(tmp_path):
    paths = Paths(project_dir=PROJECT_DIR, db_path=tmp_path / "work.duckdb", drops_dir=tmp_path, reports_dir=tmp_path)
    with duckdb.connect(str(paths.db_path)) as con:
        con.execute("create schema marts; create table marts.good as select 1::bigint as n")
        con.execute("create schema staging; create view staging.stg_x as select 1 as n")
    first = publish.publish(paths, fake_manifest(("marts", "good")))
    assert first.db_path == tmp_path / "published" / "work.duckdb"
    assert published_counts(first.db_path) == {"marts.good": 1, "ops.published_tables": 2}
    with duckdb.connect(str(first.db_path), read_only=True) as con:
        assert con.sql("select comment from duckdb_columns() where column_name = 'n'").fetchall() == [("A number.",)]
    before = (sha256(first.db_path), os.readlink(first.parquet_dir), sorted(os.listdir(paths.publish_dir)))

    with duckdb.connect(str(paths.db_path)) as con:
        con.execute("create table marts.bad as select sum(n) as total from marts.good")  # HUGEINT
    with pytest.raises(publish.PublishError, match=r"marts\.bad\.total has type HUGEINT"):
        publish.publish(paths, fake_manifest(("marts", "good"), ("marts", "bad")))
    with pytest.raises(publish.PublishError, match=r"does not have: marts\.missing"):
        publish.publish(paths, fake_manifest(("marts", "good"), ("marts", "missing")))
    after = (sha256(first.db_path), os.readlink(first.parquet_dir), sorted(os.listdir(paths.publish_dir)))
    assert after == before
    assert len(os.listdir(paths.publish_dir / f".{paths.published_parquet.name}.versions")) == 1

    # a publish killed midway left its temporaries: the next one removes them
    stale = [paths.publish_dir / ".work.duckdb.20260101T000000Z-1.tmp", paths.publish_dir / ".work.duckdb.x.tmp.wal"]
    for path in stale:
        path.write_bytes(b"half a file")
    publish.publish(paths, fake_manifest(("marts", "good")))
    assert not any(path.exists() for path in stale)

    # later publishes swap the Parquet link and keep two versions at most
    for _ in range(3):
        time.sleep(0.01)
        last = publish.publish(paths, fake_manifest(("marts", "good")))
    assert os.readlink(last.parquet_dir) != before[1]
    assert len(os.listdir(paths.publish_dir / f".{paths.published_parquet.name}.versions")) == 2
    assert pl.read_parquet(last.parquet_dir / "good" / "*.parquet").to_dicts() == [{"n": 1}]


def test_publish_command_publishes_what_a_plain_dbt_build_left(built):
    """`agent-eval publish` after a plain `dbt build` (which never publishes):
    the same tables and rows as the working database; refused after a failed
    dbt run unless --force, and the served file is then untouched."""
    from agent_eval import cli

    wh, code = built("basic")
    assert code == EXIT_REJECTED
    shutil.rmtree(wh.paths.publish_dir)
    assert cli.cmd_publish(wh.paths) == cli.EXIT_OK
    with duckdb.connect(str(wh.paths.published_db), read_only=True) as pub:
        listed = pub.execute(
            "select schema_name, table_name, n_rows from ops.published_tables where table_name <> 'published_tables'"
        ).fetchall()
    assert len(listed) > 30
    with duckdb.connect(str(wh.paths.db_path), read_only=True) as work:
        for schema, table, n_rows in listed:
            assert work.execute(f'select count(*) from "{schema}"."{table}"').fetchone()[0] == n_rows, table

    results = wh.paths.target_dir / "run_results.json"
    data = json.loads(results.read_text(encoding="utf-8"))
    data["results"][0]["status"] = "error"
    results.write_text(json.dumps(data), encoding="utf-8")
    served = hashlib.sha256(wh.paths.published_db.read_bytes()).hexdigest()
    assert cli.cmd_publish(wh.paths) == cli.EXIT_FAILED
    assert hashlib.sha256(wh.paths.published_db.read_bytes()).hexdigest() == served
    assert cli.cmd_publish(wh.paths, force=True) == cli.EXIT_OK
    results.unlink()
    assert cli.cmd_publish(wh.paths) == cli.EXIT_USAGE  # no run results: nothing known about the build


def test_plain_dbt_build_names_rejected_input_and_still_builds_every_good_set(built):
    """An operator's plain `dbt build` (selector nightly) on a night with
    rejected input: by default it fails, naming each file and reason in dbt's
    own output; with var rejected_input_severity = warn it warns and exits 0.
    Either way every good set is built (the test's models are leaves)."""
    wh, code = built("basic")
    assert code == EXIT_REJECTED
    with duckdb.connect(str(wh.paths.db_path), read_only=True) as con:
        rejected = sorted(
            {
                r[0]
                for r in con.execute(
                    "select source_file from ops.rejected_files where is_latest union all "
                    "select source_file from ops.rejected_rows where is_current"
                ).fetchall()
            }
        )
        sets_before = con.execute("select count(*) from marts.resume_set_scores").fetchone()[0]
    assert rejected and sets_before > 0
    cwd, _ = wh.paths.dbt_location()
    command = [
        sys.executable,
        "-c",
        "from dbt.cli.main import cli; cli()",
        "build",
        "--selector",
        "nightly",
        "--project-dir",
        str(PROJECT_DIR),
    ]

    strict = subprocess.run(command, cwd=cwd, env=wh.paths.dbt_env(), capture_output=True, text=True)
    assert strict.returncode == 1, strict.stdout[-2000:]
    assert "assert_no_rejected_input" in strict.stdout
    for source_file in rejected:
        assert f"rejected input: {source_file}: " in strict.stdout
    assert "rejected input (ops.rejected_files, ops.rejected_rows): " in strict.stdout  # the failure's message
    with duckdb.connect(str(wh.paths.db_path), read_only=True) as con:
        assert con.execute("select count(*) from marts.resume_set_scores").fetchone()[0] == sets_before

    lenient = subprocess.run(
        [*command, "--vars", "{rejected_input_severity: warn}"],
        cwd=cwd,
        env=wh.paths.dbt_env(),
        capture_output=True,
        text=True,
    )
    assert lenient.returncode == 0, lenient.stdout[-2000:]
    assert "Warning in test assert_no_rejected_input" in lenient.stdout
    for source_file in rejected:
        assert f"rejected input: {source_file}: " in lenient.stdout
