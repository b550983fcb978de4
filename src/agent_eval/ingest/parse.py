"""The one parse of a file version: its encoding, its whole-file checks, its record count, and its rows landed for the loader.

The manifest step (``manifest.manifest_rows``) calls it for every new file
version; a loader model calls it again only for a version whose landing is
gone (``rows.load_pending``). Raises RejectedFile for a file that cannot be
loaded as a whole, FileChanged for a CSV file that changed while it was
read (nothing of it lands); what it returns is what ``ops.load_log``
records.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from agent_eval.drop_kinds import DropKind
from agent_eval.ingest import csv_load
from agent_eval.ingest.common import FileChanged, RejectedFile, max_record_bytes, surrogates_escaped, too_large
from agent_eval.ingest.encodings import decode, detect_encoding, encoding_of
from agent_eval.ingest.landing import FORM_CSV, Landed, Landing, QueryRecords, records_schema
from agent_eval.ingest.records import (
    LONE_SURROGATE,
    Record,
    document_header,
    document_records,
    holds_lone_surrogate_text,
    json_document,
    read_csv_header,
    read_records,
)
from agent_eval.ingest.unicode_form import TEXT_NOT_NFC, is_nfc

# A batch of the exact parser's records lands once it holds this many rows
# (or the record limit's worth of text, whichever comes first).
BATCH_ROWS = 65536


def record_batches(
    records: Iterable[Record], kind: DropKind, extra_names: list[str] | None = None
) -> Iterator[pa.RecordBatch]:
    """The exact parser's records in landed form (``landing.records_schema``),
    in batches of at most BATCH_ROWS rows or about the record limit's worth
    of text (one record more at most): every record one row, a rejected one
    with its reason and text. At least one batch, empty for no record.

    A CSV record's columns beyond the required ones are kept as a JSON
    array of their values in header order; their names, the file's, are
    added once to ``extra_names`` (the manifest's extra_columns)."""
    schema = records_schema(kind)
    limit = max_record_bytes()
    required = set(kind.required)

    def empty() -> dict[str, list[Any]]:
        return {name: [] for name in schema.names}

    columns, size, sent = empty(), 0, False
    for record in records:
        columns["line_number"].append(record.line_number)
        columns["reject_reason"].append(record.reject_reason)
        columns["raw_text"].append(record.raw_text)
        size += len(record.raw_text or "")
        if kind.fmt == "csv":
            values = record.values or {}
            for name in kind.required:
                value = values.get(name)
                columns[name].append(value)
                size += len(value or "")
            extra = [v for k, v in values.items() if k not in required]
            if extra and extra_names is not None and not extra_names:
                extra_names.extend(k for k in values if k not in required)
            text = json.dumps(extra, ensure_ascii=False, separators=(",", ":")) if extra else None
            columns["extra_columns"].append(text)
        else:
            if record.values is None:
                text = None
            elif record.values_json is not None:
                text = record.values_json
            else:
                text = json.dumps(record.values, ensure_ascii=False)
            columns["record_json"].append(text)
        size += len(text or "")
        if size >= limit or len(columns["line_number"]) >= BATCH_ROWS:
            yield _batch(columns, schema)
            columns, size, sent = empty(), 0, True
    if columns["line_number"] or not sent:
        yield _batch(columns, schema)


def _batch(columns: dict[str, list[Any]], schema: pa.Schema) -> pa.RecordBatch:
    """The batch of ``columns``; a record whose text holds a lone
    surrogate (a reader kept a \\ud800 escape's string: it has no UTF-8)
    is rejected as such, its text kept with the escape written out. Looked
    for only when Arrow cannot encode the batch."""
    try:
        return pa.RecordBatch.from_pydict(columns, schema=schema)
    except UnicodeEncodeError:
        pass
    values = [name for name in schema.names if name not in ("line_number", "reject_reason", "raw_text")]
    for row in range(len(columns["line_number"])):
        texts = [columns[name][row] for name in values]
        if any(holds_lone_surrogate_text(text) for text in texts if text is not None):
            record_text = columns["raw_text"][row] or next((text for text in texts if text is not None), None)
            columns["raw_text"][row] = record_text
            columns["reject_reason"][row] = columns["reject_reason"][row] or LONE_SURROGATE
            for name in values:
                columns[name][row] = None
        for name in ("raw_text", "reject_reason"):
            text = columns[name][row]
            if text is not None and holds_lone_surrogate_text(text):
                columns[name][row] = surrogates_escaped(text)
    return pa.RecordBatch.from_pydict(columns, schema=schema)


def records_table(records: Iterable[Record] | pa.Table | QueryRecords, kind: DropKind) -> pa.Table:
    """The exact parser's records in landed form, as one table (a reader's
    table of them already in that form as it is, or its query's rows)."""
    if isinstance(records, pa.Table):
        return records
    if isinstance(records, QueryRecords):
        return records.to_arrow(records_schema(kind))
    return pa.Table.from_batches(list(record_batches(records, kind)), schema=records_schema(kind))


def _land_exact(
    landing: Landing,
    kind: DropKind,
    sha256: str,
    records: Iterable[Record] | pa.Table | QueryRecords,
    header: Any = None,
) -> Landed:
    """Land the exact parser's records (all of them read before anything
    lands: a whole-file fault found late still rejects the whole file), or
    a reader's table or query of them already in landed form."""
    table = records if isinstance(records, QueryRecords) else records_table(records, kind)
    document = None if header is None else json.dumps(header, ensure_ascii=False)
    if document is not None and holds_lone_surrogate_text(document):
        raise RejectedFile(f"not valid JSON: {LONE_SURROGATE.removeprefix('invalid_json: ')}, in the file's header")
    return landing.commit_records(kind, sha256, table, document)


def _land_exact_stream(
    landing: Landing, kind: DropKind, sha256: str, records: Iterable[Record], extra_names: list[str] | None = None
) -> Landed:
    """Land the exact parser's records of a CSV file read as a stream, a
    batch at a time, so memory follows a batch and the record being read,
    not the file (a JSON document is parsed whole anyway: _land_exact).
    Nothing lands if reading them raises."""
    return landing.commit_record_batches(kind, sha256, record_batches(records, kind, extra_names))


def extra_columns_fact(names: Iterable[str], kind: DropKind) -> str | None:
    """The manifest's extra_columns of a CSV file: the names of its columns
    beyond the required ones, in header order, as a JSON array; None when
    there are none."""
    extra = [name for name in names if name not in set(kind.required)]
    return json.dumps(extra, ensure_ascii=False, separators=(",", ":")) if extra else None


def parse_file(data: bytes, kind: DropKind, sha256: str, landing: Landing) -> dict[str, Any]:
    """Parse a JSON or JSONL file held in memory and land its records;
    returns the manifest's facts. Raises RejectedFile."""
    if not data.strip():
        raise RejectedFile("empty file")
    if kind.fmt == "json" and kind.records_key is None and len(data) > max_record_bytes():
        # a whole-document kind (an expectation file) is one record: the
        # record-size limit rejects it whole, before it is parsed
        raise RejectedFile(too_large(len(data)))
    encoding = detect_encoding(data)
    text = decode(data, encoding)
    if kind.fmt == "json":
        document = json_document(text)
        records: Iterator[Record] = document_records(document, kind)
        header = document_header(document, kind)
    else:
        records, header = read_records(text, kind), None
    landed = _land_exact(landing, kind, sha256, records, header)
    facts: dict[str, Any] = {"encoding": encoding, "n_data_records": landed.n_records}
    if not is_nfc(text):
        facts["loader_note"] = TEXT_NOT_NFC
    return facts


def parse_log(path: Path, kind: DropKind, sha256: str, landing: Landing) -> dict[str, Any]:
    """Read a file of another tool's format with its kind's reader and land
    its records and header; returns the manifest's facts. Raises
    RejectedFile."""
    assert kind.reader is not None
    header, records = kind.reader(path)
    landed = _land_exact(landing, kind, sha256, records, header)
    # the tools' JSON (a .json log, a zip's members) is UTF-8
    return {"encoding": "utf-8", "n_data_records": landed.n_records}


def _csv_encoding(path: Path, scan: csv_load.FileScan) -> str:
    """``encoding_of`` a CSV file scanned in chunks (the scan found where
    UTF-8 fails; CP949 is tried by reading the file again only then)."""

    def chunks() -> Iterator[bytes]:
        with path.open("rb") as handle:
            while chunk := handle.read(csv_load.CHUNK_BYTES):
                yield chunk

    return encoding_of(scan.head, scan.utf8_error_offset, chunks)


def start_csv_parse(path: Path, kind: DropKind, landing: Landing) -> csv_load.Speculation | None:
    """Start DuckDB's parse of a file that looks like UTF-8 (from its first
    bytes), so that it runs while the byte scan reads the file. None when
    it is not tried (a file that cannot be read is the scan's to report)."""
    identity = csv_load.identity_of(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(csv_load.HEAD_BYTES)
    except OSError:
        return None
    whole = len(head) < csv_load.HEAD_BYTES
    encoding = "utf-8-sig" if head.startswith(b"\xef\xbb\xbf") else "utf-8"
    try:
        header = read_csv_header(head, encoding, kind.required, whole)
    except RejectedFile:
        return None  # not UTF-8 after all, or a header the parse will reject
    if header is None or _duckdb_obstacle(path, encoding, header) is not None:
        return None
    return csv_load.Speculation(path, header, landing.partial(kind.name), identity)


def parse_csv(
    path: Path,
    kind: DropKind,
    scan: csv_load.FileScan,
    landing: Landing,
    speculation: csv_load.Speculation | None = None,
) -> dict[str, Any]:
    """Encoding, header check, record count and landed rows of a CSV file,
    and which parser read it: DuckDB when its reading provably agrees with
    the exact parser (see agent_eval.ingest.csv_load), else the exact parser
    (``loader_note`` says why). Raises RejectedFile, or FileChanged when the
    file is not the one ``scan`` read (its identity moved: the scan, DuckDB's
    parse and the exact parser each read it), whatever the parse made of it
    (a rejection or an error of a file being rewritten included)."""
    try:
        facts = _parse_csv(path, kind, scan, landing, speculation)
    except Exception:
        if csv_load.unchanged_since(path, scan):
            raise
        facts = None
    if facts is None or not csv_load.unchanged_since(path, scan) or not _same_file_parsed(scan, speculation):
        landing.discard(kind.name, scan.sha256)
        raise FileChanged(str(path))
    return facts


def _same_file_parsed(scan: csv_load.FileScan, speculation: csv_load.Speculation | None) -> bool:
    """DuckDB's parse in the thread opened the file before the scan did: it
    read the scanned file only if the file had the same identity then."""
    return speculation is None or speculation.identity == scan.stat


def _parse_csv(
    path: Path,
    kind: DropKind,
    scan: csv_load.FileScan,
    landing: Landing,
    speculation: csv_load.Speculation | None,
) -> dict[str, Any]:
    counts = scan.counts
    whole = counts.size <= csv_load.HEAD_BYTES
    if counts.size == 0 or (whole and not scan.head.strip()):
        raise RejectedFile("empty file")
    encoding = _csv_encoding(path, scan)
    facts: dict[str, Any] = {"encoding": encoding, "n_lines": counts.n_lines}
    header = None
    if encoding != "utf-16":
        header = read_csv_header(scan.head, encoding, kind.required, whole)
    note = _duckdb_obstacle(path, encoding, header)
    if note is None and scan.has_quote_blank_quote:
        note = 'a quote, blanks and a quote (`"a" "b"`): DuckDB would join them'
    if speculation is not None and (note is not None or speculation.header != header or encoding == "cp949"):
        speculation.cancel()  # it assumed UTF-8 and this header
        speculation = None
    if note is None and header is not None:
        landed = _land_by_duckdb(path, kind, scan, header, encoding, landing, speculation)
        if isinstance(landed, Landed):
            return facts | {
                "n_data_records": landed.n_records,
                "loader": csv_load.LOADER_DUCKDB,
                "extra_columns": extra_columns_fact(header.names, kind),
            }
        note = landed
    # read as a stream: the exact parser keeps the record it reads, not the file
    names: list[str] = []
    with path.open(encoding=encoding, newline="") as handle:
        landed = _land_exact_stream(landing, kind, scan.sha256, read_records(handle, kind), names)
    return facts | {
        "n_data_records": landed.n_records,
        "loader": csv_load.LOADER_PYTHON,
        "loader_note": note,
        "extra_columns": extra_columns_fact(names, kind),
    }


def _land_by_duckdb(
    path: Path,
    kind: DropKind,
    scan: csv_load.FileScan,
    header: csv_load.Header,
    encoding: str,
    landing: Landing,
    speculation: csv_load.Speculation | None,
) -> Landed | str:
    """DuckDB's parse of the file, landed if the verdict holds; else why not
    (and nothing landed)."""
    n_columns = len(header.names)
    bom = 3 if encoding == "utf-8-sig" else 0
    if speculation is not None:
        target, error, counts = speculation.target, speculation.result(), scan.counts
    else:
        target = landing.partial(kind.name)
        with tempfile.TemporaryDirectory(prefix="agent_eval_utf8_") as scratch:
            utf8_path = path
            if encoding == "cp949":
                utf8_path = csv_load.transcode_to_utf8(path, encoding, Path(scratch) / "utf8.csv")
            counts = scan.counts if utf8_path == path else csv_load.scan_file(utf8_path).counts
            error = csv_load.land_csv(utf8_path, n_columns, target)
    check = csv_load.verdict(header, counts, bom, error or csv_load.value_sums(target, n_columns))
    if check.loader != csv_load.LOADER_DUCKDB:
        target.unlink(missing_ok=True)
        return check.loader_note or "duckdb"
    return landing.commit(
        Landed(kind.name, scan.sha256, FORM_CSV, check.n_records, header.names, header.n_lines, check.has_breaks),
        target,
    )


def _duckdb_obstacle(path: Path, encoding: str, header: csv_load.Header | None) -> str | None:
    """Why DuckDB's reader is not even tried on this file (None: try it)."""
    if encoding == "utf-16":
        return "encoding utf-16"
    if header is None:
        return f"header longer than {csv_load.HEAD_BYTES} bytes"
    if "" in header.names:
        return "header has unnamed columns"
    if not csv_load.path_is_readable_by_duckdb(path):
        return "path has glob characters"
    return None
