"""CSV kinds at scale: one pass over the bytes, one parse by DuckDB's reader, checked.

The exact CSV parser (``records._csv_records``, Python's ``csv`` module,
line by line) is the reference: it knows every record's physical start line
and says why a record is malformed. It is also slow (about 30 s and several
GB of Python objects for a million rows). This module reads the same rows
through DuckDB's ``read_csv`` (fully pinned dialect, never the sniffer),
streaming, with no Python object per row, and proves per file that the two
agree:

1. :func:`scan_file` reads the file once in 1 MiB chunks: sha256, UTF-8
   validation (Arrow's validator), byte counts (physical lines, quote bytes,
   CR/LF bytes) and a look for `"a" "b"` (see FileScan).
2. :func:`land_csv` is the parse: one DuckDB pass that writes every value
   of the file, as read, to a Parquet file in the landing folder
   (``ingest.landing``) - in a thread, while step 1 runs
   (:class:`Speculation`). :func:`value_sums` then counts the records and
   sums, over every landed value, its length, its quote and CR/LF bytes and
   its line breaks, and :func:`verdict` keeps DuckDB's reading only when the
   parse succeeded (no ragged or malformed record) and the file is fully
   accounted for:

   - lines: physical lines = header lines + records + line breaks inside
     values (so no blank line was skipped and each record's start line
     follows from its ordinal and the breaks before it);
   - bytes: every byte after the header is a value byte, a delimiter, a quote
     byte or a line-break byte (so no whitespace around a quoted field was
     dropped: DuckDB trims it, Python's parser keeps it).

   Otherwise the landing is discarded, the exact parser reads the file, and
   ``loader_note`` says why. tests/test_csv_load.py checks, on crafted and
   random (also damaged) files, that both paths give identical rows.
3. :func:`landed_select_sql` turns a landed file into raw rows for the
   loader model (start lines from the Parquet row number plus a running sum
   of line breaks); the drop file is not read again.

CP949 files are transcoded in streaming chunks to a temporary UTF-8 file,
parsed the same way, and the copy is removed at once.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from agent_eval.ingest.common import complete_utf8_prefix, max_record_bytes
from agent_eval.ingest.unicode_form import NfcCheck

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
    stat: tuple[int, ...]  # file_identity() when the scan opened the file
    # A closing quote, blanks, then another quote (`"a" "b"`): DuckDB joins
    # the two quoted parts into one value where the exact parser sees a
    # malformed record, and no byte goes missing, so the byte accounting
    # cannot see it. Found from the bytes, conservatively (see below).
    has_quote_blank_quote: bool = False
    # all of the text is in Unicode NFC (read as UTF-8; ingest.unicode_form)
    is_nfc: bool = True


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
        cut = len(data) if final else complete_utf8_prefix(data)
        if cut:
            _validate_utf8(memoryview(data)[:cut], self.offset, self)
        self.carry = bytes(data[cut:])
        self.offset += cut
        if final and self.carry and self.error_offset is None:
            self.error_offset = self.offset

    def fail(self, offset: int) -> None:
        self.error_offset = offset


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
    form = NfcCheck()
    size = n_lf = n_cr = n_crlf = n_quote = 0
    previous_last = b""
    head = b""
    suspicious = False
    tail = b""  # end of the previous chunk that a pattern could continue
    with path.open("rb") as handle:
        opened = os.fstat(handle.fileno())
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
            if not head:
                head = chunk[:HEAD_BYTES]
            validator.feed(chunk)
            form.feed(chunk)
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
    form.feed(b"", final=True)
    n_breaks = n_lf + n_cr - n_crlf
    ends_open = size > 0 and previous_last not in (b"\n", b"\r")
    counts = ByteCounts(
        size=size,
        n_lines=n_breaks + (1 if ends_open else 0),
        n_quote_bytes=n_quote,
        n_break_bytes=n_lf + n_cr,
    )
    return FileScan(
        digest.hexdigest(), counts, validator.error_offset, head, file_identity(opened), suspicious, form.is_nfc
    )


def file_identity(stat: os.stat_result) -> tuple[int, ...]:
    """What says a file is still the one read: device, inode (a file renamed
    over it), size and modification time (a file rewritten in place)."""
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def identity_of(path: Path) -> tuple[int, ...] | None:
    try:
        return file_identity(path.stat())
    except OSError:
        return None


def unchanged_since(path: Path, scan: FileScan) -> bool:
    """The file is the one the scan read (same identity)."""
    return identity_of(path) == scan.stat


# ---------------------------------------------------------------------------
# Transcoding (CP949 and other non-UTF-8 encodings)
# ---------------------------------------------------------------------------


def transcode_to_utf8(path: Path, encoding: str, target: Path) -> Path:
    """A UTF-8 copy of ``path`` at ``target`` (for DuckDB's reader, which
    reads UTF-8 only), decoded in streaming chunks."""
    decoder = codecs.getincrementaldecoder(encoding)()
    with path.open("rb") as source, target.open("wb") as sink:
        while chunk := source.read(CHUNK_BYTES):
            sink.write(decoder.decode(chunk).encode("utf-8"))
        sink.write(decoder.decode(b"", final=True).encode("utf-8"))
    return target


# ---------------------------------------------------------------------------
# Step 2: header and the DuckDB check
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    names: list[str]
    n_lines: int  # physical lines the header record spans
    text: str  # the header record as read, line break included


def sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def sql_ident(value: str) -> str:
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
        f"read_csv({sql_str(str(path))}, delim = ',', quote = '\"', escape = '\"', "
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
    has_breaks: bool = False  # some value spans lines


@dataclass(frozen=True)
class ValueSums:
    """What DuckDB's reader made of a file: records and sums over all values."""

    n_records: int
    value_bytes: int
    value_quotes: int
    value_break_bytes: int
    value_breaks: int  # line breaks inside values


def land_csv(utf8_path: Path, n_columns: int, target: Path, con: duckdb.DuckDBPyConnection | None = None) -> str | None:
    """The parse: DuckDB reads the file once and writes its values, in file
    order, to ``target`` (Parquet, columns ``c0`` .. ``cN``). Returns the
    reader's error message if it fails, else None."""
    own = con is None
    con = duckdb.connect() if con is None else con
    try:
        con.execute(
            f"copy (select * from {read_csv_sql(utf8_path, n_columns)}) "
            f"to {sql_str(str(target))} (format parquet, compression snappy)"
        )
        return None
    except duckdb.Error as err:
        return "duckdb: " + str(err).splitlines()[0][:200]
    finally:
        if own:
            con.close()


def value_sums(landed: Path, n_columns: int) -> ValueSums | str:
    """Records and sums over every value of a landed file (land_csv); the
    error message if DuckDB cannot compute them."""
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
        + f" from read_parquet({sql_str(str(landed))})"
    )
    try:
        with duckdb.connect() as con:
            ((*sums,),) = con.execute(query).fetchall()
    except duckdb.Error as err:
        return "duckdb: " + str(err).splitlines()[0][:200]
    return ValueSums(*sums)


def verdict(header: Header, counts: ByteCounts, bom: int, sums: ValueSums | str) -> CsvCheck:
    """DuckDB when its reading accounts for every line and byte of the file.

    Otherwise python, with ``loader_note`` saying why (the caller then reads
    the file with the exact parser).
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
    return CsvCheck(sums.n_records, LOADER_DUCKDB, None, sums.value_breaks > 0)


class Speculation:
    """land_csv() in a thread, started before the byte scan finishes.

    DuckDB releases the GIL, so its parse and the Python byte scan run on two
    cores at once. The landing is kept only if the scan confirms what the
    speculation assumed (valid UTF-8, the same header) and the verdict holds.
    """

    def __init__(self, utf8_path: Path, header: Header, target: Path, identity: tuple[int, ...] | None) -> None:
        self.header = header
        self.target = target
        self.identity = identity  # the file's identity before DuckDB opened it
        self._con = duckdb.connect()
        self._open = True
        self._error: str | None = "not run"
        self._thread = threading.Thread(target=self._run, args=(utf8_path, len(header.names)), daemon=True)
        self._thread.start()

    def _run(self, utf8_path: Path, n_columns: int) -> None:
        self._error = land_csv(utf8_path, n_columns, self.target, self._con)

    def result(self) -> str | None:
        """The parse's error, or None: ``target`` holds the landed values."""
        self._thread.join()
        self._close()
        return self._error

    def cancel(self) -> None:
        """Not needed (the bytes were seen before, or the file cannot be
        read this way): stop DuckDB and remove what it wrote. Harmless
        after result() and after the landing was committed (moved)."""
        if self._open:
            self._con.interrupt()
            self._thread.join()
            self._close()
        self.target.unlink(missing_ok=True)

    def _close(self) -> None:
        if self._open:
            self._con.close()
            self._open = False


# ---------------------------------------------------------------------------
# Step 3: a landed file as raw rows
# ---------------------------------------------------------------------------


def landed_select_sql(
    parquet: Path,
    names: Sequence[str],
    header_lines: int,
    has_breaks: bool,
    required: Sequence[str],
    observation: dict[str, str],
) -> str:
    """One SELECT giving the raw-rows schema (``landing.rows_schema``) for
    one landed CSV file; ``observation`` holds the SQL of its source_file,
    sha256 and loaded_at."""
    index = {name: i for i, name in enumerate(names)}
    values = [f"coalesce(c{index[name]}, '') as {sql_ident(name)}" for name in required]
    extra = [i for i, name in enumerate(names) if name not in required]
    if extra:
        # the values only, in header order: the names are the file's
        # (raw_drop_files.extra_columns), not repeated in every row
        listed = ", ".join(f"coalesce(c{i}, '')" for i in extra)
        extra_sql = f"cast(to_json([{listed}]) as varchar)"
    else:
        extra_sql = "cast(null as varchar)"
    scan = f"read_parquet({sql_str(str(parquet))}, file_row_number = true)"
    if has_breaks:
        breaks = " + ".join(line_breaks_sql(f"c{i}") for i in range(len(names)))
        source = (
            "(select *, sum(n_breaks) over (order by file_row_number rows between unbounded preceding "
            f"and current row) - n_breaks as breaks_before from (select *, {breaks} as n_breaks from {scan}))"
        )
        line = f"{header_lines} + 1 + file_row_number + breaks_before"
    else:
        source = scan
        line = f"{header_lines} + 1 + file_row_number"
    return (
        f"select {observation['source_file']} as source_file, {observation['sha256']} as sha256, "
        f"cast({line} as bigint) as line_number, {observation['loaded_at']} as loaded_at, "
        "cast(null as varchar) as reject_reason, cast(null as varchar) as raw_text, "
        + ", ".join(values)
        + f", {extra_sql} as extra_columns from {source}"
    )


def path_is_readable_by_duckdb(path: Path) -> bool:
    return not (GLOB_CHARS & set(str(path)))
