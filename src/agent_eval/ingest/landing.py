"""The landing folder: where the one parse of a file version leaves its rows for the loader models.

Every new file version is parsed once, by the manifest step
(``agent_eval.ingest.parse``), and what that parse made of it *lands* here,
per kind and sha256, until a loader model appends it to raw history:

- ``<kind>/<sha256>.parquet``: the rows. Two forms:

  - ``csv``: DuckDB's reading of a CSV file, one text column per header
    column (``c0`` .. ``cN``, in file order, rows in file order). The
    manifest proved this reading exact (``csv_load.verdict``) on this very
    Parquet file, so what is loaded is what was checked.
  - ``records``: the exact parser's records (CSV it cannot prove DuckDB
    exact on, JSONL, JSON), already in raw-row form without the lineage
    columns (``records_schema``).

- ``<kind>/<sha256>.json``: what the loader needs besides the rows (the
  form, the header's names and lines, whether values hold line breaks, a
  JSON document's top-level fields). Written last: a landing is complete
  when this file exists.

The folder sits beside the warehouse file (``<warehouse>.duckdb.landing/``),
so it belongs to one warehouse and one build at a time (DuckDB's file lock).
The manifest step empties it before it lands a build's new versions (every
loader of the build before has read its landings, or failed), and loaders
only read it: two loaders of one kind (summary's cases and datasets) read
one landing, and neither removes what the other reads. What stays between
builds is the last build's new versions. A version whose landing is gone
(a failed build's, a deleted folder, a raw table rebuilt from the drops) is
parsed again from its drop file by its loader (``rows.load_pending``), if
its bytes still have the recorded sha256; two loaders of one kind may then
both parse it and rename identical files into place (atomic on POSIX).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

import duckdb
import pyarrow as pa

from agent_eval.drop_kinds import DropKind
from agent_eval.ingest import csv_load

FORM_CSV = "csv"
FORM_RECORDS = "records"

# The raw-row columns every kind's loader writes before its values: where the
# row comes from (the first four) and, for a record that could not be parsed,
# why and its text.
LINEAGE_FIELDS = [
    ("source_file", pa.string()),
    ("sha256", pa.string()),
    ("line_number", pa.int64()),
    ("loaded_at", pa.timestamp("us")),
    ("reject_reason", pa.string()),
    ("raw_text", pa.string()),
]

# What the loader adds to landed rows: the observation, not the bytes (one
# version may be loaded from two paths).
OBSERVATION_FIELDS = ("source_file", "sha256", "loaded_at")


def value_fields(kind: DropKind) -> list[tuple[str, pa.DataType]]:
    if kind.fmt == "csv":
        return [(name, pa.string()) for name in kind.required] + [("extra_columns", pa.string())]
    return [("record_json", pa.string())]


def rows_schema(kind: DropKind) -> pa.Schema:
    """The schema of a kind's raw rows (its loader model's table)."""
    return pa.schema(LINEAGE_FIELDS + value_fields(kind))


def records_schema(kind: DropKind) -> pa.Schema:
    """The schema of landed records: raw rows without the observation."""
    return pa.schema([f for f in LINEAGE_FIELDS if f[0] not in OBSERVATION_FIELDS] + value_fields(kind))


class QueryRecords:
    """Records in landed form that a reader left in DuckDB: the rows of
    ``sql`` on ``con`` (a connection of the reader's own, which this
    object closes once the rows are written), ``num_rows`` of them. The
    landing copies them to Parquet in DuckDB, without a round trip through
    Python."""

    def __init__(self, con: duckdb.DuckDBPyConnection, sql: str, num_rows: int) -> None:
        self.con, self.sql, self.num_rows = con, sql, num_rows

    def to_parquet(self, path: Path) -> None:
        try:
            self.con.execute(f"copy ({self.sql}) to {csv_load.sql_str(str(path))} (format parquet, compression snappy)")
        finally:
            self.con.close()

    def to_arrow(self, schema: pa.Schema) -> pa.Table:
        try:
            return self.con.sql(self.sql).to_arrow_table().cast(schema)
        finally:
            self.con.close()


@dataclass(frozen=True)
class Landed:
    """A complete landing of one file version of one kind."""

    kind: str
    sha256: str
    form: str  # FORM_CSV or FORM_RECORDS
    n_records: int
    header_names: list[str] | None = None  # csv form: column i is c{i}
    header_lines: int | None = None  # csv form: physical lines of the header
    has_breaks: bool = False  # csv form: some value spans lines
    document_header: str | None = None  # json kinds: top-level fields as JSON


def landing_root(con: duckdb.DuckDBPyConnection) -> Path:
    """The landing folder of the warehouse ``con`` is connected to:
    ``<database file>.landing`` beside a file. A database that is not a
    local file lands in the user's own folder under the system's temporary
    folder: per database name for MotherDuck (``md:``; two builds of one
    MotherDuck database at once would share it, as they share the
    database), per process for an in-memory database."""
    ((name, path),) = con.execute(
        "select database_name, path from duckdb_databases() where database_name = current_database()"
    ).fetchall()
    if path and not str(path).startswith("md:") and path != ":memory:":
        return Path(str(path) + ".landing").resolve()
    scratch = Path(tempfile.gettempdir()) / f"agent_eval_landing-{os.getuid()}"
    return scratch / (name if path and str(path).startswith("md:") else f"memory-{os.getpid()}")


class Landing:
    """The landing folder of one warehouse."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, kind: str) -> Path:
        folder = self.root / kind
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def partial(self, kind: str) -> Path:
        """A fresh name to write rows to before their sha256 is known."""
        fd, name = tempfile.mkstemp(suffix=".parquet.partial", dir=self.folder(kind))
        os.close(fd)
        return Path(name)

    def rows_path(self, kind: str, sha256: str) -> Path:
        return self.root / kind / f"{sha256}.parquet"

    def meta_path(self, kind: str, sha256: str) -> Path:
        return self.root / kind / f"{sha256}.json"

    def commit(self, landed: Landed, rows: Path) -> Landed:
        """Make ``rows`` (a Parquet file in the kind's folder) the landing of
        ``landed``: the rows first, the description last."""
        os.replace(rows, self.rows_path(landed.kind, landed.sha256))
        meta = self.partial(landed.kind)
        meta.write_text(json.dumps(asdict(landed), ensure_ascii=False), encoding="utf-8")
        os.replace(meta, self.meta_path(landed.kind, landed.sha256))
        return landed

    def commit_records(
        self, kind: DropKind, sha256: str, records: pa.Table | QueryRecords, document_header: str | None
    ) -> Landed:
        rows = self.partial(kind.name)
        if isinstance(records, QueryRecords):
            records.to_parquet(rows)
        else:
            with duckdb.connect() as con:  # pyarrow.parquet would add its import to every load
                con.from_arrow(records).to_parquet(str(rows), compression="snappy")
        return self.commit(
            Landed(kind.name, sha256, FORM_RECORDS, records.num_rows, None, None, False, document_header), rows
        )

    def commit_record_batches(self, kind: DropKind, sha256: str, batches: Iterable[pa.RecordBatch]) -> Landed:
        """Land record batches (``records_schema``), each its own row group
        as it comes (memory follows a batch); nothing lands if reading them
        raises."""
        import pyarrow.parquet as pq  # here only: the exact CSV parser's path

        rows = self.partial(kind.name)
        n_records = 0
        try:
            with pq.ParquetWriter(str(rows), records_schema(kind), compression="snappy") as writer:
                for batch in batches:
                    writer.write_batch(batch)
                    n_records += batch.num_rows
        except BaseException:
            rows.unlink(missing_ok=True)
            raise
        return self.commit(Landed(kind.name, sha256, FORM_RECORDS, n_records, None, None, False, None), rows)

    def get(self, kind: str, sha256: str) -> Landed | None:
        """The complete landing of a version, or None."""
        try:
            meta = json.loads(self.meta_path(kind, sha256).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        if not self.rows_path(kind, sha256).is_file():
            return None
        return Landed(**meta)

    def discard(self, kind: str, sha256: str) -> None:
        """Remove a version's landing (rows that are not those bytes')."""
        self.meta_path(kind, sha256).unlink(missing_ok=True)
        self.rows_path(kind, sha256).unlink(missing_ok=True)

    def clear(self) -> None:
        """Remove every landing (the manifest step, before it lands a build's
        new versions: the loaders of earlier builds have read theirs)."""
        shutil.rmtree(self.root, ignore_errors=True)


def select_sql(landing: Landing, landed: Landed, kind: DropKind, source_file: str, loaded_at: datetime) -> str:
    """One SELECT of a landing's rows as raw rows (``rows_schema``)."""
    parquet = landing.rows_path(landed.kind, landed.sha256)
    observation = {
        "source_file": csv_load.sql_str(source_file),
        "sha256": csv_load.sql_str(landed.sha256),
        "loaded_at": f"cast({csv_load.sql_str(loaded_at.isoformat(sep=' '))} as timestamp)",
    }
    if landed.form == FORM_CSV:
        return csv_load.landed_select_sql(
            parquet, landed.header_names or [], landed.header_lines or 1, landed.has_breaks, kind.required, observation
        )
    columns = [
        observation[name] + f" as {name}" if name in observation else csv_load.sql_ident(name)
        for name in rows_schema(kind).names
    ]
    return f"select {', '.join(columns)} from read_parquet({csv_load.sql_str(str(parquet))})"
