"""CSV kinds at scale: one pass over the bytes, DuckDB's reader, checked.

The exact CSV parser (``ingest._csv_records``, Python's ``csv`` module, line
by line) is the reference: it knows every record's physical start line and
says why a record is malformed. It is also slow (about 30 s and several GB of
Python objects for a million rows). This module loads the same rows through
DuckDB's ``read_csv`` (fully pinned dialect, never the sniffer), streaming,
with no Python object per row, and proves per file that the two agree:

1. :func:`scan_file` reads the file once in 1 MiB chunks: sha256, UTF-8
   validation (Arrow's validator), byte counts (physical lines, quote bytes,
   CR/LF bytes) and a look for `"a" "b"` (see FileScan).
2. :func:`value_sums` (after ``ingest`` parsed the header with the exact
   parser) runs one DuckDB query over the whole file that counts records and
   sums, over every value, its length, its quote and CR/LF bytes and its line
   breaks - in a thread, while step 1 runs (:class:`Speculation`).
   :func:`verdict` picks DuckDB only when that query succeeds (no ragged or
   malformed record) and the file is fully accounted for:

   - lines: physical lines = header lines + records + line breaks inside
     values (so no blank line was skipped and each record's start line
     follows from its ordinal and the breaks before it);
   - bytes: every byte after the header is a value byte, a delimiter, a quote
     byte or a line-break byte (so no whitespace around a quoted field was
     dropped: DuckDB trims it, Python's parser keeps it).

   Otherwise the file goes to the exact parser, and ``loader_note`` says why.
   tests/test_csv_load.py checks, on crafted and random (also damaged)
   files, that both paths give identical rows.
3. :func:`rows_relation` returns one DuckDB relation with every record of the
   pending files: DuckDB-loaded files stream from ``read_csv`` (start lines
   from ``row_number() over ()`` plus a running sum of line breaks, both
   streaming windows that keep file order); exact-parser files come as an
   Arrow table. dbt writes the relation; nothing is materialized in Python.

CP949 files are transcoded in streaming chunks to a temporary UTF-8 file,
then read the same way.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import os
import re
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from agent_eval.ingest.common import max_record_bytes

CHUNK_BYTES = 1 << 20
HEAD_BYTES = 1 << 16
# read_csv treats these as glob characters; such paths take the exact parser.
GLOB_CHARS = frozenset("*?[]{}")

LOADER_DUCKDB = "duckdb"
LOADER_PYTHON = "python"


# ---------------------------------------------------------------------------
# Step 1: one streaming pass over the bytes
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ByteCounts:
    """Counts over a file's bytes (all of them, header included)."""

    size: int
    n_lines: int  # physical lines: \r\n, \n or a lone \r ends one
    n_quote_bytes: int
    n_break_bytes: int  # bytes that are \r or \n


@dataclass(frozen=True)
class FileScan:
    sha256: str
    counts: ByteCounts
    utf8_error_offset: int | None  # None: valid UTF-8
    head: bytes  # the first HEAD_BYTES bytes
    # A closing quote, blanks, then another quote (`"a" "b"`): DuckDB joins
    # the two quoted parts into one value where the exact parser sees a
    # malformed record, and no byte goes missing, so the byte accounting
    # cannot see it. Found from the bytes, conservatively (see below).
    has_quote_blank_quote: bool = False


# A quote run, blanks, a quote. Inside a quoted field quotes are doubled, so a
# run in the middle of a field is even; a closing quote makes a run odd. At
# the start of a field the parity flips (the opening quote), so a run right
# after a delimiter or line break is flagged whatever its length. False alarms
# (a field that starts with `" `) only cost the fast path.
_QUOTE_BLANK_QUOTE = re.compile(rb'(?P<pre>[^"]|\A)(?P<run>"+)[ \t]+"')


def _quote_blank_quote(data: bytes) -> bool:
    if b'" ' not in data and (b"\t" not in data or b'"\t' not in data):
        return False
    for match in _QUOTE_BLANK_QUOTE.finditer(data):
        if len(match["run"]) % 2 or match["pre"] in (b"", b",", b"\r", b"\n"):
            return True
    return False


class _Utf8Validator:
    """Strict UTF-8 validation in chunks (Arrow's validator, GIL released)."""

    def __init__(self) -> None:
        self.carry = b""
        self.offset = 0  # file offset of carry[0]
        self.error_offset: int | None = None

    def feed(self, chunk: bytes, final: bool = False) -> None:
        if self.error_offset is not None:
            return
        data = self.carry + chunk if self.carry else chunk
        cut = len(data) if final else _complete_prefix(data)
        if cut:
            _validate_utf8(memoryview(data)[:cut], self.offset, self)
        self.carry = bytes(data[cut:])
        self.offset += cut
        if final and self.carry and self.error_offset is None:
            self.error_offset = self.offset

    def fail(self, offset: int) -> None:
        self.error_offset = offset


def _complete_prefix(data: bytes) -> int:
    """Length of the longest prefix that does not end inside a UTF-8 sequence."""
    end = len(data)
    for back in range(1, min(4, end) + 1):
        byte = data[end - back]
        if byte & 0xC0 == 0x80:  # continuation byte: keep looking back
            continue
        if byte < 0x80:
            return end
        need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
        return end if back >= need else end - back
    return end


def _validate_utf8(view: memoryview, base: int, validator: _Utf8Validator) -> None:
    offsets = pa.array([0, len(view)], pa.int32()).buffers()[1]
    array = pa.Array.from_buffers(pa.binary(), 1, [None, offsets, pa.py_buffer(view)])
    try:
        array.cast(pa.string())
    except pa.ArrowInvalid:
        try:
            bytes(view).decode("utf-8")
        except UnicodeDecodeError as err:
            validator.fail(base + err.start)
            return
        validator.fail(base)  # Arrow stricter than Python: treat as invalid


def scan_file(path: Path) -> FileScan:
    """sha256, UTF-8 validity and byte counts, reading the file once."""
    digest = hashlib.sha256()
    validator = _Utf8Validator()
    size = n_lf = n_cr = n_crlf = n_quote = 0
    previous_last = b""
    head = b""
    suspicious = False
    tail = b""  # end of the previous chunk that a pattern could continue
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
            if not head:
                head = chunk[:HEAD_BYTES]
            validator.feed(chunk)
            if not suspicious:
                joined = tail + chunk if tail else chunk
                suspicious = _quote_blank_quote(joined)
                # quotes and blanks at the end (and the byte before them) may
                # start a match that the next chunk completes
                keep = len(joined) - len(joined.rstrip(b'" \t')) + 1
                tail = joined[-keep:]
            n_lf += chunk.count(b"\n")
            chunk_cr = chunk.count(b"\r")
            n_cr += chunk_cr
            if chunk_cr:
                n_crlf += chunk.count(b"\r\n")
            if previous_last == b"\r" and chunk[:1] == b"\n":
                n_crlf += 1
            n_quote += chunk.count(b'"')
            previous_last = chunk[-1:]
            size += len(chunk)
    validator.feed(b"", final=True)
    n_breaks = n_lf + n_cr - n_crlf
    ends_open = size > 0 and previous_last not in (b"\n", b"\r")
    counts = ByteCounts(
        size=size,
        n_lines=n_breaks + (1 if ends_open else 0),
        n_quote_bytes=n_quote,
        n_break_bytes=n_lf + n_cr,
    )
    return FileScan(digest.hexdigest(), counts, validator.error_offset, head, suspicious)


# ---------------------------------------------------------------------------
# Transcoding (CP949 and other non-UTF-8 encodings)
# ---------------------------------------------------------------------------

# Where the loader's UTF-8 copies of non-UTF-8 files live while DuckDB reads
# them. A copy must outlive the loader model: the model returns a relation
# and dbt reads it after the model returned. So the copies are named by the
# file version's sha256 (one version is never transcoded twice at once, and
# a retried load reuses its copy) and each load removes the copies older
# than TRANSCODED_MAX_AGE_S, far longer than any load; no process-wide state,
# and two builds of different warehouses never remove each other's copies.
TRANSCODED_DIR_NAME = "agent_eval_transcoded"
TRANSCODED_MAX_AGE_S = 3600


def transcoded_dir() -> Path:
    directory = Path(tempfile.gettempdir()) / TRANSCODED_DIR_NAME
    directory.mkdir(exist_ok=True)
    return directory


def remove_stale_transcoded(max_age_s: float = TRANSCODED_MAX_AGE_S) -> list[Path]:
    """Remove the UTF-8 copies older than ``max_age_s``; returns them."""
    removed = []
    cutoff = time.time() - max_age_s
    for copy in transcoded_dir().glob("*.csv"):
        with contextlib.suppress(FileNotFoundError):  # another load removed it first
            if copy.stat().st_mtime < cutoff:
                copy.unlink()
                removed.append(copy)
    return removed


def transcode_to_utf8(path: Path, encoding: str, target: Path) -> Path:
    """A UTF-8 copy of ``path`` at ``target``, written whole before it
    appears (a reader never sees half a copy)."""
    decoder = codecs.getincrementaldecoder(encoding)()
    fd, name = tempfile.mkstemp(suffix=".partial", dir=target.parent)
    with path.open("rb") as source, open(fd, "wb") as sink:
        while chunk := source.read(CHUNK_BYTES):
            sink.write(decoder.decode(chunk).encode("utf-8"))
        sink.write(decoder.decode(b"", final=True).encode("utf-8"))
    os.replace(name, target)
    return target


# ---------------------------------------------------------------------------
# Step 2: header and the DuckDB check
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    names: list[str]
    n_lines: int  # physical lines the header record spans
    text: str  # the header record as read, line break included


def _sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _sql_ident(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


# read_csv's own default max_line_size (bytes); larger would also grow its buffers
DUCKDB_MAX_LINE_SIZE = 2 * 2**20


def read_csv_sql(path: Path, n_columns: int) -> str:
    """``read_csv`` with every dialect option pinned: no sniffing, all text.
    A record longer than the record limit (``ingest.max_record_bytes``)
    fails DuckDB's reader, so the file takes the exact parser, which
    rejects that record with its reason: the limit holds on both paths."""

    columns = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(n_columns))
    return (
        f"read_csv({_sql_str(str(path))}, delim = ',', quote = '\"', escape = '\"', "
        "header = true, skip = 0, auto_detect = false, strict_mode = true, "
        "null_padding = false, ignore_errors = false, encoding = 'utf-8', "
        f"max_line_size = {min(max_record_bytes(), DUCKDB_MAX_LINE_SIZE)}, "
        f"columns = {{{columns}}})"
    )


def _count_in(column: str, needle_sql: str) -> str:
    """Occurrences of a 1-character needle in a value (0 when absent or null)."""
    return (
        f"case when contains({column}, {needle_sql}) then "
        f"strlen({column}) - strlen(replace({column}, {needle_sql}, '')) else 0 end"
    )


def line_breaks_sql(column: str) -> str:
    r"""Line breaks inside a value: \r\n, \n and a lone \r count one each."""
    lf, cr = "chr(10)", "chr(13)"
    crlf = (
        f"case when contains({column}, {cr}) then (strlen({column}) - "
        f"strlen(replace({column}, {cr} || {lf}, ''))) // 2 else 0 end"
    )
    return f"({_count_in(column, lf)} + {_count_in(column, cr)} - {crlf})"


@dataclass(frozen=True)
class CsvCheck:
    n_records: int
    loader: str
    loader_note: str | None


@dataclass(frozen=True)
class ValueSums:
    """What DuckDB's reader made of a file: records and sums over all values."""

    n_records: int
    value_bytes: int
    value_quotes: int
    value_break_bytes: int
    value_breaks: int  # line breaks inside values


def value_sums(utf8_path: Path, n_columns: int, con: duckdb.DuckDBPyConnection | None = None) -> ValueSums | str:
    """One DuckDB pass over the file; the reader's error message if it fails."""
    columns = [f"c{i}" for i in range(n_columns)]

    def total(expr: Any) -> str:
        return "coalesce(sum(" + " + ".join(expr(c) for c in columns) + "), 0)"

    query = (
        "select count(*), "
        + total(lambda c: f"coalesce(strlen({c}), 0)")
        + ", "
        + total(lambda c: _count_in(c, "'\"'"))
        + ", "
        + total(lambda c: _count_in(c, "chr(10)"))
        + " + "
        + total(lambda c: _count_in(c, "chr(13)"))
        + ", "
        + total(line_breaks_sql)
        + " from "
        + read_csv_sql(utf8_path, n_columns)
    )
    own = con is None
    con = duckdb.connect() if con is None else con
    try:
        return ValueSums(*con.execute(query).fetchone())
    except duckdb.Error as err:
        return "duckdb: " + str(err).splitlines()[0][:200]
    finally:
        if own:
            con.close()


def verdict(header: Header, counts: ByteCounts, bom: int, sums: ValueSums | str) -> CsvCheck:
    """DuckDB when its reading accounts for every line and byte of the file.

    Otherwise python, with ``loader_note`` saying why (the caller then counts
    with the exact parser).
    """
    if isinstance(sums, str):
        return CsvCheck(-1, LOADER_PYTHON, sums)
    lines_expected = header.n_lines + sums.n_records + sums.value_breaks
    if lines_expected != counts.n_lines:
        return CsvCheck(
            -1,
            LOADER_PYTHON,
            f"line accounting: {counts.n_lines} lines in file, {lines_expected} from records (blank lines?)",
        )
    header_bytes = len(header.text.encode("utf-8"))
    data_bytes = counts.size - bom - header_bytes
    data_quotes = counts.n_quote_bytes - header.text.count('"')
    data_breaks = counts.n_break_bytes - header.text.count("\r") - header.text.count("\n")
    accounted = (
        sums.value_bytes
        + sums.n_records * (len(header.names) - 1)
        + (data_quotes - sums.value_quotes)
        + (data_breaks - sums.value_break_bytes)
    )
    if accounted != data_bytes:
        return CsvCheck(
            -1,
            LOADER_PYTHON,
            f"byte accounting: {data_bytes} data bytes, {accounted} from values (spaces around a quoted field?)",
        )
    return CsvCheck(sums.n_records, LOADER_DUCKDB, None)


class Speculation:
    """value_sums() in a thread, started before the byte scan finishes.

    DuckDB releases the GIL, so its pass and the Python byte scan run on two
    cores at once. The result is used only if the scan confirms what the
    speculation assumed (valid UTF-8, the same header).
    """

    def __init__(self, utf8_path: Path, header: Header) -> None:
        self.header = header
        self._con = duckdb.connect()
        self._result: ValueSums | str = "not run"
        self._thread = threading.Thread(target=self._run, args=(utf8_path, len(header.names)), daemon=True)
        self._thread.start()

    def _run(self, utf8_path: Path, n_columns: int) -> None:
        self._result = value_sums(utf8_path, n_columns, self._con)

    def result(self) -> ValueSums | str:
        self._thread.join()
        self._con.close()
        return self._result

    def cancel(self) -> None:
        """Not needed after all (the bytes were seen before): stop DuckDB."""
        self._con.interrupt()
        self._thread.join()
        self._con.close()


# ---------------------------------------------------------------------------
# Step 3: the rows of pending files, as one relation
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DuckdbFile:
    """A pending file the manifest cleared for DuckDB's reader."""

    source_file: str
    sha256: str
    loaded_at: datetime
    utf8_path: Path
    header: Header
    has_breaks: bool  # some value spans lines: start lines need a running sum


def file_select_sql(item: DuckdbFile, required: Sequence[str]) -> str:
    """One SELECT giving the raw-rows schema for one file (see ingest.csv_rows_schema)."""
    names = item.header.names
    index = {name: i for i, name in enumerate(names)}
    values = [f"coalesce(c{index[name]}, '') as {_sql_ident(name)}" for name in required]
    extra = [(i, name) for i, name in enumerate(names) if name not in required]
    if extra:
        pairs = ", ".join(f"{_sql_str(name)}, coalesce(c{i}, '')" for i, name in extra)
        extra_sql = f"cast(json_object({pairs}) as varchar)"
    else:
        extra_sql = "cast(null as varchar)"
    scan = read_csv_sql(item.utf8_path, len(names))
    if item.has_breaks:
        breaks = " + ".join(line_breaks_sql(f"c{i}") for i in range(len(names)))
        source = (
            "(select *, sum(n_breaks) over (rows between unbounded preceding "
            "and current row) - n_breaks as breaks_before from ("
            f"select row_number() over () as ordinal, *, {breaks} as n_breaks from {scan}))"
        )
        line = f"{item.header.n_lines} + ordinal + breaks_before"
    else:
        source = f"(select row_number() over () as ordinal, * from {scan})"
        line = f"{item.header.n_lines} + ordinal"
    return (
        f"select {_sql_str(item.source_file)} as source_file, "
        f"{_sql_str(item.sha256)} as sha256, "
        f"cast({line} as bigint) as line_number, "
        f"cast({_sql_str(item.loaded_at.isoformat(sep=' '))} as timestamp) as loaded_at, "
        "cast(null as varchar) as reject_reason, cast(null as varchar) as raw_text, "
        + ", ".join(values)
        + f", {extra_sql} as extra_columns from {source}"
    )


def rows_relation(
    session: duckdb.DuckDBPyConnection,
    required: Sequence[str],
    duckdb_files: Sequence[DuckdbFile],
    python_rows: pa.Table,
    view_name: str,
) -> duckdb.DuckDBPyRelation:
    """Union of the DuckDB-read files and the exact parser's rows."""
    session.register(view_name, python_rows)
    parts = [file_select_sql(item, required) for item in duckdb_files]
    parts.append(f"select * from {view_name}")
    return session.sql("\nunion all\n".join(parts))


def path_is_readable_by_duckdb(path: Path) -> bool:
    return not (GLOB_CHARS & set(str(path)))
