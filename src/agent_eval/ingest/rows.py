"""Step 2: the rows. The records of every new loaded file version, for the loader models to append to raw history (and the document header of JSON kinds)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from agent_eval.drop_kinds import DropKind
from agent_eval.ingest import csv_load
from agent_eval.ingest.common import file_modified_at, resolve_drops_dir, sha256_of
from agent_eval.ingest.encodings import decode
from agent_eval.ingest.kinds import kind_named
from agent_eval.ingest.records import document_header, read_csv_header, read_records

LINEAGE_FIELDS = [
    ("source_file", pa.string()),
    ("sha256", pa.string()),
    ("line_number", pa.int64()),
    ("loaded_at", pa.timestamp("us")),
    ("reject_reason", pa.string()),
    ("raw_text", pa.string()),
]


def csv_rows_schema(kind: DropKind) -> pa.Schema:
    return pa.schema(
        LINEAGE_FIELDS + [(name, pa.string()) for name in kind.required] + [("extra_columns", pa.string())]
    )


def json_rows_schema() -> pa.Schema:
    return pa.schema(LINEAGE_FIELDS + [("record_json", pa.string())])


@dataclass(frozen=True)
class PendingFile:
    source_file: str
    sha256: str
    encoding: str
    loaded_at: datetime
    # CSV kinds: what the manifest found (see csv_rows_relation)
    loader: str | None = None
    n_lines: int | None = None
    n_data_records: int | None = None
    size_bytes: int | None = None
    modified_at: datetime | None = None


def pending_files(dbt: Any, session: Any, kind_name: str, drop_files: Any) -> list[PendingFile]:
    """The loaded versions of ``kind_name``'s files (manifest ``drop_files``,
    in observation order) that the loader model's table does not hold yet."""
    loaded = (
        drop_files.filter(f"kind = '{kind_name}' and status = 'loaded'")
        .order("observation_seq")
        .project("source_file, sha256, encoding, loaded_at, loader, n_lines, n_data_records, size_bytes, modified_at")
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


def load_records(dbt: Any, session: Any, kind_name: str, drop_files: Any, drops_dir: str | None) -> Any:
    """The one entry point of the record loader models
    (``models/raw/<agent>/raw_*.py``): every record of every new loaded
    version of ``kind_name``'s files, to append to raw history. CSV kinds
    are read by DuckDB's reader where the manifest found it exact
    (``csv_rows_relation``), other kinds record by record (``rows_table``).
    The model passes ``dbt.ref(...)`` and ``dbt.config.get("drops_dir")``
    itself: dbt finds a Python model's inputs and configuration in its own
    source."""
    pending = pending_files(dbt, session, kind_name, drop_files)
    if kind_named(kind_name).fmt == "csv":
        return csv_rows_relation(session, kind_name, drops_dir or "", pending)
    return rows_table(kind_name, drops_dir or "", pending)


def load_headers(dbt: Any, session: Any, kind_name: str, drop_files: Any, drops_dir: str | None) -> pa.Table:
    """As ``load_records``, for the document-level fields of a JSON kind
    (one row per file version: ``headers_table``)."""
    return headers_table(kind_name, drops_dir or "", pending_files(dbt, session, kind_name, drop_files))


def rows_table(kind_name: str, drops_dir: str | Path, pending: Iterable[PendingFile]) -> pa.Table:
    """Every data record of the pending files as one Arrow table."""
    kind = kind_named(kind_name)
    root = resolve_drops_dir(drops_dir)
    schema = csv_rows_schema(kind) if kind.fmt == "csv" else json_rows_schema()
    columns: dict[str, list[Any]] = {name: [] for name in schema.names}
    for item in pending:
        path = root / item.source_file
        data = path.read_bytes()
        if sha256_of(data) != item.sha256:
            # The file changed between the manifest and this step; the next
            # build observes the new bytes. Load nothing rather than a mix.
            continue
        text = decode(data, item.encoding)
        for record in read_records(text, kind):
            columns["source_file"].append(item.source_file)
            columns["sha256"].append(item.sha256)
            columns["line_number"].append(record.line_number)
            columns["loaded_at"].append(item.loaded_at)
            columns["reject_reason"].append(record.reject_reason)
            columns["raw_text"].append(record.raw_text)
            if kind.fmt == "csv":
                values = record.values or {}
                for name in kind.required:
                    columns[name].append(values.get(name))
                extra = {k: v for k, v in values.items() if k not in kind.required}
                columns["extra_columns"].append(
                    json.dumps(extra, ensure_ascii=False, separators=(",", ":")) if extra else None
                )
            else:
                columns["record_json"].append(
                    None if record.values is None else json.dumps(record.values, ensure_ascii=False)
                )
    return pa.table(columns, schema=schema)


def csv_rows_relation(
    session: duckdb.DuckDBPyConnection,
    kind_name: str,
    drops_dir: str | Path,
    pending: Iterable[PendingFile],
) -> duckdb.DuckDBPyRelation:
    """Every data record of the pending files of a CSV kind, as one relation.

    Files the manifest cleared for DuckDB (``loader = 'duckdb'``) stream from
    ``read_csv``; the others are parsed by the exact parser (rows_table).
    Same schema and values either way (csv_rows_schema).
    """
    kind = kind_named(kind_name)
    root = resolve_drops_dir(drops_dir)
    csv_load.remove_stale_transcoded()
    duckdb_files: list[csv_load.DuckdbFile] = []
    exact: list[PendingFile] = []
    for item in pending:
        if item.loader != csv_load.LOADER_DUCKDB:
            exact.append(item)
            continue
        path = root / item.source_file
        if not path.is_file() or (path.stat().st_size != item.size_bytes or file_modified_at(path) != item.modified_at):
            # Changed (or gone) since the manifest observed it: load nothing;
            # the next build observes the new bytes.
            continue
        with path.open("rb") as handle:
            head = handle.read(csv_load.HEAD_BYTES)
        header = read_csv_header(head, item.encoding, kind.required, item.size_bytes <= csv_load.HEAD_BYTES)
        if header is None:  # not within the first bytes after all: exact parser
            exact.append(item)
            continue
        utf8_path = path
        if item.encoding not in ("utf-8", "utf-8-sig"):
            utf8_path = csv_load.transcoded_dir() / f"{item.sha256}.csv"
            if not utf8_path.is_file():
                csv_load.transcode_to_utf8(path, item.encoding, utf8_path)
        duckdb_files.append(
            csv_load.DuckdbFile(
                source_file=item.source_file,
                sha256=item.sha256,
                loaded_at=item.loaded_at,
                utf8_path=utf8_path,
                header=header,
                has_breaks=item.n_lines != header.n_lines + (item.n_data_records or 0),
            )
        )
    python_rows = rows_table(kind_name, drops_dir, exact)
    return csv_load.rows_relation(session, kind.required, duckdb_files, python_rows, f"{kind_name}__exact_rows")


HEADERS_SCHEMA = pa.schema(
    [
        ("source_file", pa.string()),
        ("sha256", pa.string()),
        ("loaded_at", pa.timestamp("us")),
        ("header_json", pa.string()),
    ]
)


def headers_table(kind_name: str, drops_dir: str | Path, pending: Iterable[PendingFile]) -> pa.Table:
    """One row per pending file of a json kind: its header as JSON text."""
    kind = kind_named(kind_name)
    if kind.fmt != "json" or kind.records_key is None:
        raise ValueError(f"kind {kind_name!r} has no document header")
    root = resolve_drops_dir(drops_dir)
    rows = []
    for item in pending:
        data = (root / item.source_file).read_bytes()
        if sha256_of(data) != item.sha256:
            continue  # changed since the manifest: the next build sees it
        header = document_header(decode(data, item.encoding), kind)
        rows.append(
            {
                "source_file": item.source_file,
                "sha256": item.sha256,
                "loaded_at": item.loaded_at,
                "header_json": json.dumps(header, ensure_ascii=False),
            }
        )
    return pa.Table.from_pylist(rows, schema=HEADERS_SCHEMA)
