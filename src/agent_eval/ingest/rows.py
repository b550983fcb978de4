"""Step 2: the rows. What the manifest step landed for every new loaded file version, for the loader models to append to raw history (and the document header of JSON kinds)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from agent_eval.drop_kinds import DropKind
from agent_eval.ingest import csv_load
from agent_eval.ingest.common import FileChanged, RejectedFile, resolve_drops_dir, sha256_of, sha256_of_file
from agent_eval.ingest.kinds import kind_named
from agent_eval.ingest.landing import Landed, Landing, landing_root, rows_schema, select_sql
from agent_eval.ingest.parse import parse_csv, parse_file, parse_log


@dataclass(frozen=True)
class PendingFile:
    """A loaded file version the loader model's table does not hold yet."""

    source_file: str
    sha256: str
    loaded_at: datetime


def pending_files(dbt: Any, session: Any, kind_name: str, drop_files: Any) -> list[PendingFile]:
    """The loaded versions of ``kind_name``'s files (manifest ``drop_files``,
    in observation order) that the loader model's table does not hold yet."""
    loaded = (
        drop_files.filter(f"kind = '{kind_name}' and status = 'loaded'")
        .order("observation_seq")
        .project("source_file, sha256, loaded_at")
        .fetchall()
    )
    done: set[tuple[str, str]] = set()
    if dbt.is_incremental and loaded:
        # A literal list prunes row groups by their sha256 statistics: the
        # cost follows the number of files, not the rows in history.
        shas = ", ".join(sorted({f"'{row[1]}'" for row in loaded}))
        done = set(
            session.sql(f"select distinct source_file, sha256 from {dbt.this} where sha256 in ({shas})").fetchall()
        )
    return [PendingFile(*row) for row in loaded if (row[0], row[1]) not in done]


def load_records(dbt: Any, session: Any, kind_name: str, drop_files: Any, drops_dir: str | None = None) -> Any:
    """The one entry point of the record loader models
    (``models/raw/<agent>/raw_*.py``): every record of every new loaded
    version of ``kind_name``'s files, to append to raw history, from what
    the manifest step landed (``load_pending``). The model passes
    ``dbt.ref("raw_drop_files")`` itself: dbt finds a Python model's inputs
    in its own source. The drops folder (read again only for a version
    whose landing is gone) is ``drops_dir``, else ``resolve_drops_dir``'s."""
    pending = pending_files(dbt, session, kind_name, drop_files)
    return load_pending(session, kind_name, drops_dir or "", pending, landing_root(session))


def load_headers(dbt: Any, session: Any, kind_name: str, drop_files: Any, drops_dir: str | None = None) -> pa.Table:
    """As ``load_records``, for the document-level fields of a JSON kind
    (one row per file version: ``headers_table``)."""
    pending = pending_files(dbt, session, kind_name, drop_files)
    return headers_table(kind_name, drops_dir or "", pending, landing_root(session))


def _landings(
    kind: DropKind, drops_dir: str | Path, pending: Sequence[PendingFile], landing: Landing
) -> list[tuple[PendingFile, Landed]]:
    """The landing of every pending version, parsing again (once) a version
    whose landing is gone; a version whose drop file no longer has the
    recorded bytes loads nothing (the next build observes the new bytes)."""
    root = resolve_drops_dir(drops_dir)
    found = []
    for item in pending:
        landed = landing.get(kind.name, item.sha256) or _land_again(kind, root / item.source_file, item.sha256, landing)
        if landed is not None:
            found.append((item, landed))
    return found


def _land_again(kind: DropKind, path: Path, sha256: str, landing: Landing) -> Landed | None:
    """Parse a drop file again when its landing is gone (a failed build's, a
    deleted landing folder, a raw table rebuilt from the drops), if it still
    holds the recorded bytes. None when it does not (changed, gone, or
    changed while read): nothing of it is loaded, and
    ``ops.file_reconciliation`` shows the version's missing rows."""
    try:
        if kind.fmt == "csv":
            scan = csv_load.scan_file(path)
            if scan.sha256 != sha256:
                return None
            parse_csv(path, kind, scan, landing)
        elif kind.fmt == "log":
            if sha256_of_file(path) != sha256:
                return None
            parse_log(path, kind, sha256, landing)
        else:
            data = path.read_bytes()
            if sha256_of(data) != sha256:
                return None
            parse_file(data, kind, sha256, landing)
    except (OSError, RejectedFile, FileChanged):
        return None
    return landing.get(kind.name, sha256)


def load_pending(
    session: duckdb.DuckDBPyConnection,
    kind_name: str,
    drops_dir: str | Path,
    pending: Sequence[PendingFile],
    landing_dir: Path,
) -> duckdb.DuckDBPyRelation:
    """Every landed record of the pending versions of ``kind_name``, as one
    relation in raw-row form (``landing.rows_schema``); nothing is read
    into Python, and no drop file is parsed again unless its landing is
    gone."""
    kind = kind_named(kind_name)
    landing = Landing(landing_dir)
    parts = [
        select_sql(landing, landed, kind, item.source_file, item.loaded_at)
        for item, landed in _landings(kind, drops_dir, pending, landing)
    ]
    view = f"{kind_name}__no_rows"
    session.register(view, rows_schema(kind).empty_table())
    parts.append(f"select * from {view}")
    return session.sql("\nunion all\n".join(parts))


HEADERS_SCHEMA = pa.schema(
    [
        ("source_file", pa.string()),
        ("sha256", pa.string()),
        ("loaded_at", pa.timestamp("us")),
        ("header_json", pa.string()),
    ]
)


def headers_table(kind_name: str, drops_dir: str | Path, pending: Iterable[PendingFile], landing_dir: Path) -> pa.Table:
    """One row per pending file of a json kind: its top-level fields as JSON
    text, from its landing."""
    kind = kind_named(kind_name)
    if not kind.has_header:
        raise ValueError(f"kind {kind_name!r} has no document header")
    rows = [
        {
            "source_file": item.source_file,
            "sha256": item.sha256,
            "loaded_at": item.loaded_at,
            "header_json": landed.document_header,
        }
        for item, landed in _landings(kind, drops_dir, list(pending), Landing(landing_dir))
    ]
    return pa.Table.from_pylist(rows, schema=HEADERS_SCHEMA)
