"""The evaluation plan of `agent-eval evaluate`: the engagement marts' dbt
models, built once per project state and replayed on one run without dbt.

A dbt invocation costs 10-20 s of start-up, parsing and per-node overhead;
the data of one run is a few dozen lines. So dbt runs once per *project
state* and leaves behind what a replay needs:

- a **template warehouse**: ``dbt build --select +marts.engagement load_log``
  (unit tests and data tests excluded) on an *empty* drops folder. Seeds are
  loaded, every table and view exists, raw history and marts are empty;
- a **plan** (``plan.json``), written from that build's ``manifest.json`` and
  ``run_results.json``: the nodes dbt built, in dependency order, each with
  its relation and what a replay does with it:

  ========================  ==========  ===================================
  node                      action      on replay
  ========================  ==========  ===================================
  seed                      loaded      nothing (loaded in the template)
  Python model (loader)     load        run the model file's ``model(dbt,
                                        session)`` (``agent_eval.ingest``)
                                        and insert its rows
  SQL, table / incremental  recompute   ``delete from``; ``insert into ...
                                        by name`` the compiled SQL
  SQL, view                 exists      nothing (the view is in the template)
  SQL, ephemeral            inline      nothing (inlined by its readers)
  ========================  ==========  ===================================

  The compiled SQL is the template build's own: on an empty warehouse every
  incremental model compiles to its full-build branch (``is_incremental()``
  is false), which is what a replay on a copy of the template needs. (A
  ``dbt compile`` after the build would compile the incremental branch
  against the existing, empty tables, i.e. "no set to build".)

Replaying (:func:`run_plan`) copies the template under its own file name
(the database name in the compiled SQL is the file stem), runs the loaders on
the staged drops folder and recomputes the tables in order. No dbt module is
imported on that path.

The cache entry is ``<cache root>/<key>/`` with ``<key>`` = SHA-256 of
``dbt_project.yml``, ``profiles.yml``, every file under ``models/``,
``macros/`` and ``seeds/`` (sorted paths and bytes) and the versions of this
package, dbt-core, dbt-duckdb and duckdb. The cache root is
``$AGENT_EVAL_CACHE``, else ``$XDG_CACHE_HOME/agent-eval/evaluate``, else
``~/.cache/agent-eval/evaluate``. An entry is built in a temporary folder
beside it and renamed into place, so a concurrent evaluation sees a complete
entry or none.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from agent_eval import project, runner, settings
from agent_eval.project import Paths

PLAN_FORMAT = 1
PLAN_FILE = "plan.json"
DB_FILE = "evaluate.duckdb"
# Parents included: loaders, file versions, seeds. load_log reports files the
# loader rejected (e.g. an empty actions.jsonl).
DBT_SELECT = ("+marts.engagement", "load_log")
DBT_BUILD_ARGS = (
    "--select",
    *DBT_SELECT,
    "--exclude-resource-type",
    "unit_test",
    "--exclude-resource-type",
    "test",
)
KEY_FILES = ("dbt_project.yml", "profiles.yml")
KEY_DIRS = ("models", "macros", "seeds")
KEY_DISTRIBUTIONS = ("agent-eval-warehouse", "dbt-core", "dbt-duckdb")
RECOMPUTED = ("table", "incremental", "set_incremental")
# plan entries kept in the cache (most recently used first)
KEEP_ENTRIES = 8
NODE_TYPES = ("model", "seed", "snapshot")


class PlanError(Exception):
    """The cache entry cannot be used (missing, incomplete, of another
    format) or the template build produced something a replay cannot do."""


# ---------------------------------------------------------------------------
# Where, and for which project state
# ---------------------------------------------------------------------------


def cache_root() -> Path:
    env = settings.value("AGENT_EVAL_CACHE")
    if env:
        return env.resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return (base / "agent-eval" / "evaluate").resolve()


def project_key(project_dir: Path) -> str:
    versions = project.distribution_versions(KEY_DISTRIBUTIONS) + [("duckdb", duckdb.__version__)]
    files = project.tree_files(project_dir, KEY_FILES, KEY_DIRS)
    return project.content_digest(f"agent-eval evaluate plan {PLAN_FORMAT}", versions, files)


# ---------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    folder: Path
    data: dict[str, Any]
    # built by this process (a failure on it is not a stale cache)
    built_now: bool = False

    @property
    def template(self) -> Path:
        return self.folder / self.data["db_file"]

    @property
    def nodes(self) -> list[dict[str, Any]]:
        return self.data["nodes"]

    @property
    def unsupported(self) -> list[str]:
        return self.data["unsupported"]


def load_plan(folder: Path, key: str) -> Plan:
    try:
        data = json.loads((folder / PLAN_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlanError(f"no plan in {folder}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise PlanError(f"unreadable plan in {folder}: {err}") from None
    if not isinstance(data, dict) or data.get("format") != PLAN_FORMAT or data.get("key") != key:
        raise PlanError(f"plan in {folder} is of another format or project state")
    plan = Plan(folder, data)
    if not plan.template.is_file():
        raise PlanError(f"no template warehouse in {folder}")
    return plan


def _relation(node: dict[str, Any]) -> str:
    if node.get("relation_name"):
        return node["relation_name"]
    parts = (node.get("database"), node.get("schema"), node.get("alias") or node.get("name"))
    return ".".join('"' + str(p).replace('"', '""') + '"' for p in parts if p)


def _action(node: dict[str, Any]) -> str | None:
    """What a replay does with a node; None: a replay cannot do it."""
    kind = node["resource_type"]
    materialized = node.get("config", {}).get("materialized")
    if kind == "seed":
        return "loaded"
    if kind != "model":
        return None
    if node.get("language") == "python":
        return "load"
    if materialized in RECOMPUTED:
        return "recompute"
    if materialized == "view":
        return "exists"
    if materialized == "ephemeral":
        return "inline"
    return None


def plan_from_artifacts(
    manifest: dict[str, Any],
    run_results: dict[str, Any],
    key: str,
    template_drops_dir: str,
    database: str,
) -> dict[str, Any]:
    """plan.json's content from the template build's artifacts."""
    built = [r["unique_id"] for r in run_results["results"] if r["unique_id"].split(".", 1)[0] in NODE_TYPES]
    order = {uid: i for i, uid in enumerate(built)}
    manifest_nodes = manifest["nodes"]
    sources = manifest.get("sources", {})

    def parents(uid: str) -> list[str]:
        found = manifest_nodes[uid].get("depends_on", {}).get("nodes", [])
        return sorted((p for p in found if p in order), key=order.__getitem__)

    ordered: list[str] = []
    seen: set[str] = set()

    def visit(uid: str) -> None:
        if uid in seen:
            return
        seen.add(uid)
        for parent in parents(uid):
            visit(parent)
        ordered.append(uid)

    for uid in built:
        visit(uid)

    nodes: list[dict[str, Any]] = []
    unsupported: list[str] = []
    for uid in ordered:
        node = manifest_nodes[uid]
        config = node.get("config", {})
        action = _action(node)
        entry: dict[str, Any] = {
            "unique_id": uid,
            "name": node["name"],
            "resource_type": node["resource_type"],
            "language": node.get("language"),
            "materialized": config.get("materialized"),
            "relation": _relation(node),
            "depends_on": parents(uid),
            "action": action,
        }
        if action is None:
            unsupported.append(f"{uid} ({node['resource_type']}, materialized {config.get('materialized')})")
        elif node.get("database") and node["database"] != database and action != "inline":
            unsupported.append(f"{uid} (in database {node['database']}, not {database})")
        if action == "recompute":
            if not node.get("compiled_code"):
                raise PlanError(f"the template build left no compiled SQL for {uid}")
            entry["compiled_code"] = node["compiled_code"]
        if action == "load":
            refs: dict[str, str] = {}
            source_relations: dict[str, str] = {}
            for parent in node.get("depends_on", {}).get("nodes", []):
                if parent in manifest_nodes:
                    other = manifest_nodes[parent]
                    refs[other["name"]] = _relation(other)
                    refs[f"{other['package_name']}.{other['name']}"] = _relation(other)
                elif parent in sources:
                    source = sources[parent]
                    source_relations[f"{source['source_name']}.{source['name']}"] = _relation(source)
            entry.update(
                database=node.get("database"),
                schema=node.get("schema"),
                identifier=node.get("alias") or node["name"],
                original_file_path=node.get("original_file_path") or uid,
                raw_code=node["raw_code"],
                config=config,
                refs=refs,
                sources=source_relations,
            )
        nodes.append(entry)
    return {
        "format": PLAN_FORMAT,
        "key": key,
        "selection": list(DBT_SELECT),
        "db_file": DB_FILE,
        "database": database,
        # values of the template build that a replay replaces with its own
        "template": {
            "drops_dir": template_drops_dir,
            "invocation_id": run_results.get("metadata", {}).get("invocation_id") or "",
        },
        "nodes": nodes,
        "loaders": [n["unique_id"] for n in nodes if n["action"] == "load"],
        "unsupported": unsupported,
    }


def _check_template(db_path: Path, plan: dict[str, Any]) -> None:
    """Every relation a replay uses exists; the file is checkpointed."""
    with duckdb.connect(str(db_path)) as con:
        database = con.execute("select current_database()").fetchone()[0]
        if database != plan["database"]:
            raise PlanError(f"template database is {database}, expected {plan['database']}")
        for node in plan["nodes"]:
            if node["action"] in ("loaded", "load", "recompute", "exists"):
                con.execute(f"select * from {node['relation']} limit 0")
        con.execute("checkpoint")


def _install(work: Path, folder: Path) -> None:
    """Rename the finished entry into place (replacing a stale one)."""
    stale = None
    if folder.exists():
        stale = folder.with_name(f".stale-{folder.name[:16]}-{uuid.uuid4().hex[:8]}")
        try:
            os.rename(folder, stale)
        except FileNotFoundError:
            stale = None
    try:
        os.rename(work, folder)
    except OSError:
        # a concurrent evaluation installed the same entry first: use it
        if not (folder / PLAN_FILE).is_file():
            raise
        shutil.rmtree(work, ignore_errors=True)
    if stale is not None:
        shutil.rmtree(stale, ignore_errors=True)


PARSE_STATE = "partial_parse.msgpack"


def _seed_parse_state(root: Path, target: Path) -> None:
    """Start from the last build's parse state: dbt re-parses only the files
    that changed (it checks the state and parses everything when it does
    not fit)."""
    saved = root / PARSE_STATE
    if saved.is_file():
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(saved, target / PARSE_STATE)


def _keep_parse_state(root: Path, target: Path) -> None:
    state = target / PARSE_STATE
    if state.is_file():
        partial = root / f".{PARSE_STATE}.{uuid.uuid4().hex[:8]}"
        shutil.copyfile(state, partial)
        os.replace(partial, root / PARSE_STATE)


def build_plan(project_dir: Path, key: str, root: Path) -> Plan:
    """dbt build of the template warehouse on an empty drops folder, then
    plan.json; installed atomically as ``root/key``. Raises runner.DbtFailed."""
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".build-{key[:16]}-", dir=root))
    try:
        drops = work / "drops"
        drops.mkdir()
        paths = Paths(
            project_dir=project_dir,
            db_path=work / DB_FILE,
            drops_dir=drops,
            reports_dir=work / "reports",
            dbt_work_dir=work / "dbt",
        )
        target = paths.target_dir
        _seed_parse_state(root, target)
        runner.run_dbt(paths, ["build", "--project-dir", str(project_dir), *DBT_BUILD_ARGS], quiet=True)
        _keep_parse_state(root, target)
        try:
            manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
            run_results = json.loads((target / "run_results.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as err:
            raise PlanError(f"the template build left no readable dbt artifacts: {err}") from None
        data = plan_from_artifacts(manifest, run_results, key, str(drops), Path(DB_FILE).stem)
        _check_template(paths.db_path, data)
        for entry in work.iterdir():
            if entry.name != DB_FILE:
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        (work / PLAN_FILE).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        folder = root / key
        _install(work, folder)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    plan = load_plan(folder, key)
    _prune(root)
    return Plan(plan.folder, plan.data, built_now=True)


_ENTRY = re.compile(r"[0-9a-f]{64}")
_LEFT_OVER = re.compile(r"\.(build|stale)-[0-9a-f]{16}-.+")


def _prune(root: Path) -> None:
    """Keep the KEEP_ENTRIES most recently used plan entries; drop the build
    and stale folders a killed process left (older than a day). Only folders
    named as this module names them are touched (the cache root may be
    shared with other things)."""
    now = time.time()
    entries = []
    for path in root.iterdir():
        try:
            age = now - path.stat().st_mtime
        except FileNotFoundError:
            continue
        if not path.is_dir():
            continue
        if _LEFT_OVER.fullmatch(path.name) and age > 86400:
            shutil.rmtree(path, ignore_errors=True)
        elif _ENTRY.fullmatch(path.name) and (path / PLAN_FILE).is_file():
            entries.append((age, path))
    for _, path in sorted(entries)[KEEP_ENTRIES:]:
        shutil.rmtree(path, ignore_errors=True)


def ensure_plan(
    project_dir: Path,
    rebuild: bool = False,
    notify: Callable[[str], None] | None = None,
) -> Plan:
    """The plan of the project's current state: from the cache, else built
    (``rebuild``: built even when cached)."""
    key = project_key(project_dir)
    root = cache_root()
    folder = root / key
    if not rebuild:
        try:
            plan = load_plan(folder, key)
        except PlanError:
            pass
        else:
            with contextlib.suppress(OSError):
                os.utime(folder)  # recently used: kept by _prune
            return plan
    if notify is not None:
        why = "rebuilding the stale" if rebuild else "building the"
        notify(f"{why} evaluation plan for this project state (dbt build, once) in {folder}")
    return build_plan(project_dir, key, root)


# ---------------------------------------------------------------------------
# Replay
# ---------------------------------------------------------------------------


class _Config:
    def __init__(self, values: dict[str, Any]) -> None:
        self._values = values

    def get(self, key: str, default: Any = None) -> Any:
        return self._values.get(key, default)

    def meta_get(self, key: str, default: Any = None) -> Any:
        return (self._values.get("meta") or {}).get(key, default)


class _This:
    def __init__(self, database: str, schema: str, identifier: str, relation: str) -> None:
        self.database = database
        self.schema = schema
        self.identifier = identifier
        self._relation = relation

    def __repr__(self) -> str:
        return self._relation

    __str__ = __repr__


class _Dbt:
    """The ``dbt`` object a Python model receives, as dbt-duckdb builds it
    (config.get, ref, source, this, is_incremental)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, node: dict[str, Any], substitute: Callable[[str], str]) -> None:
        self._con = con
        self._refs = node["refs"]
        self._sources = node["sources"]
        self.config = _Config({k: substitute(v) if isinstance(v, str) else v for k, v in node["config"].items()})
        self.this = _This(node["database"], node["schema"], node["identifier"], node["relation"])
        # what dbt compiles against the template: its relation exists (empty)
        self.is_incremental = node["materialized"] not in ("table", "view")

    def _load(self, relation: str) -> duckdb.DuckDBPyRelation:
        return self._con.query(f"select * from {relation}")

    def ref(self, *args: str, **kwargs: Any) -> duckdb.DuckDBPyRelation:
        key = ".".join(args)
        version = kwargs.get("v") or kwargs.get("version")
        if version:
            key += f".v{version}"
        return self._load(self._refs[key])

    def source(self, *args: str) -> duckdb.DuckDBPyRelation:
        return self._load(self._sources[".".join(args)])


def _run_loader(con: duckdb.DuckDBPyConnection, node: dict[str, Any], substitute: Callable[[str], str]) -> None:
    namespace: dict[str, Any] = {"__name__": f"agent_eval_evaluate_{node['name']}"}
    exec(compile(node["raw_code"], node["original_file_path"], "exec"), namespace)  # the project's own loader
    frame = namespace["model"](_Dbt(con, node, substitute), con)
    name = f"__agent_eval_loader_{node['name']}"
    con.register(name, frame)
    try:
        con.execute(f"insert into {node['relation']} by name select * from {name}")
    finally:
        con.unregister(name)


_TRAILING = re.compile(r"[\s;]+\Z")


def loader_environment(db_path: Path, drops_dir: Path) -> dict[str, str]:
    """What dbt's environment tells the loaders (project.Paths.dbt_env): the
    drops folder (read through agent_eval.settings) and the warehouse."""
    return {"AGENT_EVAL_DROPS": str(drops_dir), "AGENT_EVAL_DB": str(db_path)}


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_plan(plan: Plan, work: Path, drops_dir: Path) -> Path:
    """Copy the template into ``work`` and compute every node on the drops
    in ``drops_dir``; return the DuckDB file."""
    work.mkdir(parents=True, exist_ok=True)
    db_path = work / plan.data["db_file"]
    shutil.copyfile(plan.template, db_path)
    template = plan.data["template"]
    replacements = [(template["drops_dir"], str(drops_dir))]
    if template["invocation_id"]:
        replacements.append((template["invocation_id"], str(uuid.uuid4())))

    def substitute(text: str) -> str:
        for old, new in replacements:
            text = text.replace(old, new)
        return text

    with _environment(loader_environment(db_path, drops_dir)), duckdb.connect(str(db_path)) as con:
        for node in plan.nodes:
            if node["action"] == "load":
                _run_loader(con, node, substitute)
            elif node["action"] == "recompute":
                sql = _TRAILING.sub("", substitute(node["compiled_code"]))
                con.execute(f"delete from {node['relation']}")
                con.execute(f"insert into {node['relation']} by name select * from (\n{sql}\n)")
    return db_path
