"""Publishing: copy what analysts read from the working warehouse into a
served DuckDB file and Parquet folders, each swapped in atomically.

Why: DuckDB allows one writer or many readers per file. If BI tools opened
the working database, the nightly `dbt build` would fail with "Could not set
lock on file" while a dashboard is open. So dbt writes only the working
database, and after a successful build (dbt's process has exited, so its
connections and lock are gone) this module:

1. discovers the published relations from dbt's manifest: every model and
   seed whose schema is in PUBLISHED_SCHEMAS (all public marts, the ops
   tables, the rubric seeds), so a new mart is published with no edit here;
2. refuses types BI drivers mishandle (BI_SAFE_TYPES), naming the column;
3. writes a new DuckDB file next to the served one, in the storage format of
   DuckDB 1.0, which every reader from DuckDB 1.0 on opens (the Metabase
   DuckDB drivers embed 1.4), with every table and
   column description as a COMMENT, plus `ops.published_tables`;
4. writes every published table as `<table>/data.parquet` into a new
   version folder;
   a model materialized as a view (marts.eval_*: the union of the
   imported tools' marts) is published as the same view over the
   published tables (its stored SQL names them by schema and table, which
   bind in the file the view lives in) and written as Parquet like a
   table; the table macros of those schemas (the compare's) are defined
   again in the new file the same way;
5. `os.replace`s the new file over the served one, then swaps the Parquet
   symlink to the new version folder (also `os.replace`, so also atomic).

A reader that holds the old file open keeps its complete old snapshot (the
old inode lives until it closes); a new connection sees the new file; no one
ever sees a half-written file. If anything fails before step 5 nothing is
swapped and the previous files stay as they were. (POSIX rename semantics:
Linux and macOS.)

What a publish would write is known before it is written: the published
relations with their documentation, each one's data version in
``build_state.node_state`` (dbt's reuse of unchanged nodes,
macros/build_state.sql) and the table macros. ``STATE_FILE`` in the
published folder keeps the fingerprint of that for the files there; a
nightly build (``publish(..., skip_unchanged=True)``) whose fingerprint is
the same, with the served file and Parquet link still the ones recorded,
copies nothing: a night with nothing new costs no copy of the warehouse.
`agent-eval publish` always copies.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from agent_eval.project import Paths

# Schemas copied to the served file: public marts (contracts), ops (what was
# loaded / rejected, for the operator's dashboard), rubric (the seeds the
# scores were computed with). Staging, intermediate and raw stay private.
PUBLISHED_SCHEMAS = ("marts", "ops", "rubric")
# the oldest DuckDB storage format that keeps what we publish (comments,
# types); DuckDB 1.0 and every later reader open it
# (docs/decisions/0027-published-storage-format.md)
STORAGE_COMPATIBILITY_VERSION = "v1.0.0"
PUBLISH_TABLE = ("ops", "published_tables")
PARQUET_FILE = "data.parquet"
SOURCE = "agent_eval_publish_source"  # alias of the attached working database
KEEP_PARQUET_VERSIONS = 2  # the current one, and the previous one for slow readers
# in the published folder: the fingerprint of what its files were published
# from, and which files they were (publish(skip_unchanged=True))
STATE_FILE = ".published.json"
STATE_FORMAT = 1  # bump when what a publish writes changes

# Types every BI driver we target (Metabase DuckDB drivers, SQLAlchemy
# duckdb-engine, JDBC) maps cleanly. Not allowed: HUGEINT / unsigned integers
# (sum() and count() results: cast to bigint), LIST / ARRAY / STRUCT / MAP /
# UNION / JSON (flatten to text or a child table), BLOB, BIT, INTERVAL, UUID.
BI_SAFE_TYPES = frozenset(
    {
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INTEGER",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "VARCHAR",
        "DATE",
        "TIME",
        "TIMESTAMP",
        "TIMESTAMP WITH TIME ZONE",
    }
)
_DECIMAL = re.compile(r"DECIMAL\(\d+,\d+\)")


class PublishError(RuntimeError):
    """Publishing refused or failed; the served files were not touched."""


@dataclass(frozen=True)
class Relation:
    """A table to publish, with its dbt documentation."""

    schema: str
    name: str
    resource_type: str
    description: str = ""
    columns: dict[str, str] = field(default_factory=dict)  # column -> description
    contract_enforced: bool = False
    is_view: bool = False
    unique_id: str = ""  # dbt's node id: its data version says whether it changed

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.name}"


@dataclass
class Published:
    db_path: Path
    parquet_dir: Path
    tables: list[tuple[str, str, int]]  # (schema, table, rows), ops.published_tables included
    unchanged: bool = False  # nothing changed since the files there were published: nothing copied


def is_bi_safe(data_type: str) -> bool:
    return data_type.upper() in BI_SAFE_TYPES or bool(_DECIMAL.fullmatch(data_type.upper()))


def load_manifest(paths: Paths) -> dict[str, Any]:
    path = paths.target_dir / "manifest.json"
    if not path.is_file():
        raise PublishError(f"no dbt manifest at {path}: run `agent-eval build` first")
    return json.loads(path.read_text(encoding="utf-8"))


def published_relations(manifest: dict[str, Any]) -> list[Relation]:
    """Every enabled model and seed of this project in a published schema,
    sorted by schema and name."""
    project = manifest.get("metadata", {}).get("project_name")
    relations = []
    for node in manifest["nodes"].values():
        if node["resource_type"] not in ("model", "seed") or node["schema"] not in PUBLISHED_SCHEMAS:
            continue
        if project and node["package_name"] != project:
            continue
        materialized = node["config"].get("materialized")
        if materialized == "ephemeral":
            continue
        relations.append(
            Relation(
                schema=node["schema"],
                name=node.get("alias") or node["name"],
                resource_type=node["resource_type"],
                description=(node.get("description") or "").strip(),
                columns={name: (col.get("description") or "").strip() for name, col in node.get("columns", {}).items()},
                contract_enforced=bool(node["config"].get("contract", {}).get("enforced")),
                is_view=materialized == "view",
                unique_id=node.get("unique_id", ""),
            )
        )
    return sorted(relations, key=lambda r: (r.schema, r.name))


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def type_problems(columns: list[tuple[str, str, str, str]]) -> list[str]:
    """(schema, table, column, type) rows -> one message per unsafe column."""
    return [
        f"{schema}.{table}.{column} has type {data_type}, which BI drivers do not read "
        "(cast sums/counts to bigint; flatten lists/structs/json to text or a child table)"
        for schema, table, column, data_type in columns
        if not is_bi_safe(data_type)
    ]


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def publish(paths: Paths, manifest: dict[str, Any] | None = None, skip_unchanged: bool = False) -> Published:
    """Publish the working database (closed: dbt has exited) to
    paths.published_db and paths.published_parquet. With
    ``skip_unchanged``, nothing is copied when the files there were
    published from the same data (``source_fingerprint``). Raises
    PublishError."""
    if paths.published_db.resolve() == paths.db_path.resolve():
        raise PublishError(f"the published file would overwrite the working database {paths.db_path}")
    if not paths.db_path.is_file():
        raise PublishError(f"no working database at {paths.db_path}")
    manifest = manifest if manifest is not None else load_manifest(paths)
    relations = published_relations(manifest)
    if not relations:
        raise PublishError("the dbt manifest lists no relation in schemas " + ", ".join(PUBLISHED_SCHEMAS))

    fingerprint = source_fingerprint(paths, relations)
    if skip_unchanged and fingerprint is not None:
        kept = _unchanged(paths, fingerprint)
        if kept is not None:
            return kept
    publish_dir = paths.publish_dir
    publish_dir.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(publish_dir, paths.published_db.name)
    (publish_dir / STATE_FILE).unlink(missing_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ") + f"-{os.getpid()}"
    tmp_db = publish_dir / f".{paths.published_db.name}.{stamp}.tmp"
    versions_dir = publish_dir / f".{paths.published_parquet.name}.versions"
    tmp_parquet = versions_dir / stamp
    try:
        tables = _write(paths, relations, manifest, tmp_db, tmp_parquet)
        _fsync(tmp_db)
        os.replace(tmp_db, paths.published_db)
        _swap_symlink(paths.published_parquet, tmp_parquet)
        _fsync(publish_dir)
    except BaseException as err:
        _remove(tmp_db)
        _remove(tmp_db.with_name(tmp_db.name + ".wal"))
        if not (paths.published_parquet.is_symlink() and paths.published_parquet.resolve() == tmp_parquet.resolve()):
            _remove(tmp_parquet)
        if isinstance(err, (duckdb.Error, OSError)):
            raise PublishError(f"publishing failed: {type(err).__name__}: {err}") from err
        raise
    _prune_versions(versions_dir, keep=tmp_parquet)
    if fingerprint is not None:
        _record_state(paths, fingerprint, tables)
    return Published(db_path=paths.published_db, parquet_dir=paths.published_parquet, tables=tables)


def source_fingerprint(paths: Paths, relations: list[Relation]) -> str | None:
    """The fingerprint of what publishing ``relations`` from the working
    database would write: each relation with its documentation and its data
    version (``build_state.node_state``: it changes with the relation's
    rows), and the table macros of the published schemas. None when a
    relation has no recorded data version (never built by this project's
    materializations, or the build state is missing): then it is copied."""
    try:
        with duckdb.connect(str(paths.db_path), read_only=True) as con:
            has_state = con.execute(
                "select count(*) from duckdb_tables() where database_name = current_database() "
                "and schema_name = 'build_state' and table_name = 'node_state'"
            ).fetchone()[0]
            if not has_state:
                return None
            versions = dict(con.execute("select unique_id, data_version from build_state.node_state").fetchall())
            macros = con.execute(
                "select schema_name, function_name, parameters, macro_definition from duckdb_functions() "
                "where database_name = current_database() and function_type = 'table_macro' and schema_name in "
                f"({', '.join('?' for _ in PUBLISHED_SCHEMAS)}) order by schema_name, function_name",
                list(PUBLISHED_SCHEMAS),
            ).fetchall()
    except duckdb.Error:
        return None
    if any(not r.unique_id or r.unique_id not in versions for r in relations):
        return None
    described = {
        "format": STATE_FORMAT,
        "storage": STORAGE_COMPATIBILITY_VERSION,
        "relations": [[asdict(r), versions[r.unique_id]] for r in relations],
        "macros": [[str(part) for part in macro] for macro in macros],
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()


def _identity(path: Path) -> list[int]:
    stat = path.stat()
    return [stat.st_ino, stat.st_size, stat.st_mtime_ns]


def _record_state(paths: Paths, fingerprint: str, tables: list[tuple[str, str, int]]) -> None:
    """After a publish: what its files were published from, and which
    files they are (a served file or link replaced by hand is not reused)."""
    state = {
        "fingerprint": fingerprint,
        "db": _identity(paths.published_db),
        "parquet": os.readlink(paths.published_parquet),
        "tables": [list(t) for t in tables],
    }
    target = paths.publish_dir / STATE_FILE
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(state), encoding="utf-8")
    os.replace(tmp, target)


def _unchanged(paths: Paths, fingerprint: str) -> Published | None:
    """The files there, when they were published from ``fingerprint`` and
    are still the files that publish wrote; else None."""
    try:
        state = json.loads((paths.publish_dir / STATE_FILE).read_text(encoding="utf-8"))
        same = (
            state["fingerprint"] == fingerprint
            and state["db"] == _identity(paths.published_db)
            and paths.published_parquet.is_symlink()
            and state["parquet"] == os.readlink(paths.published_parquet)
            and paths.published_parquet.resolve().is_dir()
        )
        tables = [(str(s), str(t), int(n)) for s, t, n in state["tables"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not same:
        return None
    return Published(paths.published_db, paths.published_parquet, tables, unchanged=True)


def _remove_stale_temporaries(publish_dir: Path, name: str) -> None:
    """A publish killed midway leaves .<name>.<stamp>.tmp (and its .wal)
    behind: the next publish removes them (publishes of one warehouse run
    one at a time, under its lock)."""
    for stale in publish_dir.glob(f".{name}.*.tmp*"):
        _remove(stale)


def _write(
    paths: Paths, relations: list[Relation], manifest: dict[str, Any], tmp_db: Path, tmp_parquet: Path
) -> list[tuple[str, str, int]]:
    published_at = datetime.now(UTC).replace(tzinfo=None)
    invocation_id = manifest.get("metadata", {}).get("invocation_id")
    config = {"storage_compatibility_version": STORAGE_COMPATIBILITY_VERSION}
    with duckdb.connect(str(tmp_db), config=config) as con:
        con.execute(f"attach {_literal(str(paths.db_path))} as {SOURCE} (read_only)")
        # one transaction: a commit per statement (hundreds of comments)
        # costs a write of the log each
        con.execute("begin")
        existing = set(
            con.execute(
                "select schema_name, table_name from duckdb_tables() where database_name = ?", [SOURCE]
            ).fetchall()
        )
        view_sql = {
            (schema, name): sql
            for schema, name, sql in con.execute(
                "select schema_name, view_name, sql from duckdb_views() where database_name = ?", [SOURCE]
            ).fetchall()
        }
        existing |= set(view_sql)
        missing = [r.qualified for r in relations if (r.schema, r.name) not in existing]
        if missing:
            raise PublishError(
                "the dbt manifest lists tables the working database does not have: " + ", ".join(missing)
            )
        columns = con.execute(
            "select schema_name, table_name, column_name, data_type from duckdb_columns() "
            "where database_name = ? order by schema_name, table_name, column_index",
            [SOURCE],
        ).fetchall()
        wanted = {(r.schema, r.name) for r in relations}
        problems = type_problems([c for c in columns if (c[0], c[1]) in wanted])
        if problems:
            raise PublishError("not BI-safe:\n  " + "\n  ".join(problems))

        counts: list[tuple[str, str, int]] = []
        # tables first: the views select from them
        for rel in sorted(relations, key=lambda r: r.is_view):
            target = f"{_ident(rel.schema)}.{_ident(rel.name)}"
            con.execute(f"create schema if not exists {_ident(rel.schema)}")
            if rel.is_view:
                # the working file's own definition, run in this file
                con.execute(view_sql[(rel.schema, rel.name)])
            else:
                con.execute(f"create table {target} as select * from {SOURCE}.{target}")
            if rel.description:
                kind = "view" if rel.is_view else "table"
                con.execute(f"comment on {kind} {target} is {_literal(rel.description)}")
            docs = {name.lower(): text for name, text in rel.columns.items()}
            for column in (c[2] for c in columns if (c[0], c[1]) == (rel.schema, rel.name)):
                text = docs.get(column.lower())
                if text:
                    con.execute(f"comment on column {target}.{_ident(column)} is {_literal(text)}")
            counts.append((rel.schema, rel.name, con.execute(f"select count(*) from {target}").fetchone()[0]))
        copy_table_macros(con)
        con.execute(f"detach {SOURCE}")

        meta_schema, meta_table = PUBLISH_TABLE
        meta = f"{_ident(meta_schema)}.{_ident(meta_table)}"
        con.execute(f"create schema if not exists {_ident(meta_schema)}")
        con.execute(
            f"create table {meta} (schema_name varchar, table_name varchar, n_rows bigint, "
            "published_at timestamp, dbt_invocation_id varchar)"
        )
        con.executemany(
            f"insert into {meta} values (?, ?, ?, ?, ?)",
            [(s, t, n, published_at, invocation_id) for s, t, n in counts]
            + [(meta_schema, meta_table, len(counts) + 1, published_at, invocation_id)],
        )
        con.execute(
            f"comment on table {meta} is "
            + _literal(
                "One row per table in this published file: its row count, when it was "
                "published (UTC) and the dbt build it comes from. Not a dbt model."
            )
        )
        for column, text in [
            ("schema_name", "Schema of the published table."),
            ("table_name", "Published table (a dbt model or seed, or this table)."),
            ("n_rows", "Rows in the table when published."),
            ("published_at", "When this file was published (UTC)."),
            ("dbt_invocation_id", "dbt invocation id of the build that produced the data."),
        ]:
            con.execute(f"comment on column {meta}.{_ident(column)} is {_literal(text)}")
        counts.append((meta_schema, meta_table, len(counts) + 1))

        for schema, table, _ in counts:
            folder = tmp_parquet / table
            folder.mkdir(parents=True)
            con.execute(
                f"copy (select * from {_ident(schema)}.{_ident(table)}) "
                f"to {_literal(str(folder / PARQUET_FILE))} (format parquet, compression zstd)"
            )
        con.execute("commit")
        con.execute("checkpoint")
    for path in tmp_parquet.rglob(PARQUET_FILE):
        _fsync(path)
    return counts


def copy_table_macros(con: duckdb.DuckDBPyConnection) -> None:
    """Define in the new file the table macros of the published schemas (the
    compare's, macros/compare.sql): readers call them with bound parameters
    on the read-only file. Their definitions name tables by schema and table,
    which bind in the file the macro lives in, as a view's do."""
    macros = con.execute(
        "select schema_name, function_name, parameters, macro_definition from duckdb_functions() "
        "where database_name = ? and function_type = 'table_macro' and schema_name in "
        f"({', '.join('?' for _ in PUBLISHED_SCHEMAS)}) order by schema_name, function_name",
        [SOURCE, *PUBLISHED_SCHEMAS],
    ).fetchall()
    for schema, name, parameters, definition in macros:
        con.execute(f"create schema if not exists {_ident(schema)}")
        params = ", ".join(_ident(p) for p in parameters)
        con.execute(f"create or replace macro {_ident(schema)}.{_ident(name)}({params}) as table {definition}")


def _swap_symlink(link: Path, target: Path) -> None:
    """Point `link` at `target` atomically (relative link, so the published
    folder can be moved). A real folder in its place (an old copy) is moved
    into the versions folder first."""
    if link.exists() and not link.is_symlink():
        link.rename(target.parent / f"previous-{target.name}")
    tmp_link = link.with_name(f".{link.name}.{target.name}.link")
    _remove(tmp_link)
    os.symlink(os.path.relpath(target, link.parent), tmp_link)
    os.replace(tmp_link, link)


def _prune_versions(versions_dir: Path, keep: Path) -> None:
    versions = sorted((p for p in versions_dir.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    old = [p for p in versions if p.resolve() != keep.resolve()][: max(0, len(versions) - KEEP_PARQUET_VERSIONS)]
    for path in old:
        shutil.rmtree(path, ignore_errors=True)
