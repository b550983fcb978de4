"""Getting drop files into raw history.

This module is the only place that touches drop files. dbt Python models call
it (``models/raw/common/raw_drop_files.py`` and one ``raw_<kind>_rows.py``
per input kind), so ``dbt build`` alone loads new drops.

Two steps, one mechanism for every input kind:

1. :func:`manifest_table` lists every file under ``drops_dir``, matches it to a
   :class:`DropKind`, hashes it, detects its encoding, checks that it can be
   read at all (header / JSON shape) and counts its data records. It returns
   *new observations* only: a file whose bytes were already observed at the
   same path adds nothing, so re-running changes nothing.
2. :func:`rows_table` parses the records of the observations marked
   ``loaded`` that are not yet in the kind's raw table. Every data record
   becomes one row, the ones that cannot be parsed included (with
   ``reject_reason`` and their raw text), so rows are never dropped.

The kinds are the registered agents' (``agent_eval.agents``): adding an
input kind means adding a :class:`~agent_eval.drop_kinds.DropKind` (pattern,
format, required fields) to its agent's module and a thin
``raw_<kind>_rows.py`` model (docs/adding-an-agent.md).
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from agent_eval import agents, csv_load
from agent_eval.drop_kinds import DATE_DIR, DropKind

# ---------------------------------------------------------------------------
# Input kinds
# ---------------------------------------------------------------------------


def kinds() -> tuple[DropKind, ...]:
    """Every drop kind of the registered agents (agent_eval.agents: each
    agent's module defines its kinds), in the registry's order."""
    return tuple(kind for agent in agents.registered() for kind in agent.module.KINDS)


def kind_named(name: str) -> DropKind:
    for kind in kinds():
        if kind.name == name:
            return kind
    raise KeyError(f"no registered agent reads drop kind {name!r} (seeds/registry/agents.csv)")


def __getattr__(name: str) -> Any:
    # KINDS, KINDS_BY_NAME: the registry's kinds, read when asked for
    if name == "KINDS":
        return kinds()
    if name == "KINDS_BY_NAME":
        return {kind.name: kind for kind in kinds()}
    raise AttributeError(name)


DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def is_drop_date(name: str) -> bool:
    """A drop folder name that is a real calendar date, YYYY-MM-DD
    (2026-02-30 and 2026-13-45 have the shape and are not)."""
    if not DATE_RE.match(name):
        return False
    try:
        date.fromisoformat(name)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------
# Errors and small helpers
# ---------------------------------------------------------------------------


class RejectedFile(Exception):
    """The whole file cannot be loaded; the message is the recorded reason."""


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def encoding_of(head: bytes, utf8_error_offset: int | None, chunks: Callable[[], Iterable[bytes]]) -> str:
    """The one encoding rule of every drop file; raise RejectedFile if none.

    ``head`` is the file's first bytes, ``utf8_error_offset`` where strict
    UTF-8 decoding of the whole file fails (None: it does not), ``chunks``
    gives the file's bytes again when CP949 must be tried. Order matters: a
    UTF-8 BOM (then the rest must be UTF-8), a UTF-16 BOM, strict UTF-8,
    then CP949 (a superset of EUC-KR, what Korean Excel writes). ASCII-only
    files are ``utf-8``.
    """
    if head.startswith(UTF8_BOM):
        if utf8_error_offset is not None:
            raise RejectedFile(f"undecodable: UTF-8 BOM but not UTF-8 (first bad byte at offset {utf8_error_offset})")
        return "utf-8-sig"
    if head.startswith(UTF16_BOMS):
        return "utf-16"
    if utf8_error_offset is None:
        return "utf-8"
    decoder = codecs.getincrementaldecoder("cp949")()
    try:
        for chunk in chunks():
            decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise RejectedFile(
            f"undecodable: not UTF-8, UTF-8 with BOM or CP949/EUC-KR (first bad byte at offset {utf8_error_offset})"
        ) from None
    return "cp949"


def detect_encoding(data: bytes) -> str:
    """``encoding_of`` a file held in memory."""
    try:
        data.decode("utf-8")
        offset = None
    except UnicodeDecodeError as err:
        offset = err.start
    return encoding_of(data[:4], offset, lambda: [data])


def decode(data: bytes, encoding: str) -> str:
    return data.decode(encoding)


def resolve_drops_dir(drops_dir: str | Path | None) -> Path:
    """The drops folder: the dbt var ``drops_dir`` when set, else
    $AGENT_EVAL_DROPS, else ``data/drops``; relative to the directory dbt
    runs in. Read when the loader runs, not when dbt parses the project, so
    a new drops folder never invalidates dbt's saved parse state."""
    chosen = str(drops_dir or "") or os.environ.get("AGENT_EVAL_DROPS") or "data/drops"
    return Path(chosen).expanduser().resolve()


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------


@dataclass
class Record:
    """One data record of a file: parsed values or the reason it was not."""

    line_number: int
    values: dict[str, Any] | None
    raw_text: str | None = None
    reject_reason: str | None = None


# The largest data record loaded (a CSV record, a JSONL line, a JSON
# dataset's case), in MB (2**20 bytes of UTF-8): a larger record is rejected
# with a reason naming this setting. Large enough for a legitimate multi-MB
# answer; small enough that no single record runs the build out of memory
# (a 50 MB line did, in every model that parses or copies it).
MAX_RECORD_ENV = "AGENT_EVAL_MAX_RECORD_MB"
DEFAULT_MAX_RECORD_MB = 8
# what a rejected oversized record keeps of its text (characters)
OVERSIZED_TEXT_KEPT = 2000


def max_record_mb() -> float:
    value = os.environ.get(MAX_RECORD_ENV, "").strip()
    try:
        mb = float(value) if value else DEFAULT_MAX_RECORD_MB
    except ValueError:
        raise ValueError(f"{MAX_RECORD_ENV}={value!r} is not a number of MB") from None
    if not mb > 0:
        raise ValueError(f"{MAX_RECORD_ENV}={value!r} must be a positive number of MB")
    return mb


def max_record_bytes() -> int:
    return int(max_record_mb() * 2**20)


def too_large(size_bytes: int) -> str:
    return f"record_too_large: {size_bytes / 2**20:.1f} MB, over the limit of {max_record_mb():g} MB ({MAX_RECORD_ENV})"


def clipped(text: str) -> str:
    """An oversized record's text as kept in raw history: its start, and its length."""
    if len(text) <= OVERSIZED_TEXT_KEPT:
        return text
    return text[:OVERSIZED_TEXT_KEPT] + f"… [{len(text):,} characters; cut]"


def _csv_reader(lines: Iterable[str]) -> Any:
    """The pinned dialect: comma, double quote (doubled to escape), strict;
    a field may be as large as the record limit."""
    csv.field_size_limit(max(max_record_bytes(), 2**17))
    return csv.reader(iter(lines), delimiter=",", quotechar='"', strict=True)


def _read_header(reader: Any, required: Sequence[str]) -> list[str]:
    """The header record, checked (raises RejectedFile for a bad header)."""
    try:
        header_row = next(reader)
    except StopIteration:
        raise RejectedFile("empty file: no header line") from None
    except csv.Error as err:
        raise RejectedFile(f"unreadable header line: {err}") from None
    header = [h.strip() for h in header_row]
    if header and header[0].startswith("\ufeff"):
        header[0] = header[0].lstrip("\ufeff")
    duplicated = sorted({h for h in header if header.count(h) > 1 and h})
    if duplicated:
        raise RejectedFile("duplicated column(s) in header: " + ", ".join(duplicated))
    missing = [c for c in required if c not in header]
    if missing:
        raise RejectedFile(
            "missing required column(s): "
            + ", ".join(missing)
            + f" (header has {len(header)} column(s): "
            + ", ".join(header[:20])
            + ")"
        )
    return header


def read_csv_header(head: bytes, encoding: str, required: Sequence[str], whole_file: bool) -> csv_load.Header | None:
    """The checked header record from a file's first bytes.

    None when the record may continue past ``head`` (then the exact parser
    reads the whole file). Raises RejectedFile like the exact parser.
    """
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        text = decoder.decode(head, final=whole_file)
    except UnicodeDecodeError as err:
        raise RejectedFile(f"undecodable as {encoding} at offset {err.start}") from None
    lines = list(io.StringIO(text, newline=""))
    reader = _csv_reader(lines)
    names = _read_header(reader, required)
    if not whole_file and reader.line_num >= len(lines):
        return None
    return csv_load.Header(names, reader.line_num, "".join(lines[: reader.line_num]))


def _csv_records(text: str, required: Sequence[str]) -> tuple[list[str], Iterator[Record]]:
    """Split CSV text into header and records, with physical line numbers.

    The dialect is pinned (comma, double quote, no sniffing). Quoted cells may
    span lines; ``line_number`` is the line a record starts on (the header
    is line 1). Blank lines between records are not data records.
    """
    lines = list(io.StringIO(text, newline=""))
    reader = _csv_reader(lines)
    header = _read_header(reader, required)
    limit = max_record_bytes()

    def records() -> Iterator[Record]:
        previous_end = reader.line_num
        while True:
            start = previous_end + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as err:
                end = max(reader.line_num, start)
                previous_end = end
                raw = "".join(lines[start - 1 : end])
                oversized = "field larger than field limit" in str(err)
                yield Record(
                    line_number=start,
                    values=None,
                    raw_text=clipped(raw) if oversized else raw,
                    reject_reason=too_large(len(raw.encode())) if oversized else f"malformed_csv: {err}",
                )
                continue
            end = reader.line_num
            previous_end = end
            if not row:  # a blank line is not a data record
                continue
            # UTF-8 takes at most 4 bytes a character: encode only a record
            # that may be over the limit
            if sum(len(line) for line in lines[start - 1 : end]) * 4 > limit:
                raw = "".join(lines[start - 1 : end])
                size = len(raw.encode())
                if size > limit:
                    yield Record(line_number=start, values=None, raw_text=clipped(raw), reject_reason=too_large(size))
                    continue
            if len(row) != len(header):
                yield Record(
                    line_number=start,
                    values=None,
                    raw_text="".join(lines[start - 1 : end]),
                    reject_reason=(f"ragged_row: expected {len(header)} fields, got {len(row)}"),
                )
                continue
            values = dict(zip(header, row))
            yield Record(line_number=start, values=values)

    return header, records()


def _jsonl_records(text: str, required: Sequence[str]) -> Iterator[Record]:
    limit = max_record_bytes()
    for number, line in enumerate(io.StringIO(text, newline=""), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        size = len(stripped.encode()) if len(stripped) * 4 > limit else 0  # as in _csv_records
        if size > limit:
            yield Record(number, None, clipped(line), too_large(size))
            continue
        try:
            value = json.loads(stripped)
        except json.JSONDecodeError as err:
            yield Record(number, None, line, f"invalid_json: {err.msg} at column {err.colno}")
            continue
        if not isinstance(value, dict):
            yield Record(number, None, line, "invalid_json: line is not a JSON object")
            continue
        missing = [k for k in required if k not in value]
        if missing:
            yield Record(number, None, line, "missing_required_field: " + ", ".join(missing))
            continue
        yield Record(number, value)


def _json_document(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise RejectedFile(f"not valid JSON: {err.msg} at line {err.lineno} column {err.colno}") from None


def _json_records(text: str, kind: DropKind) -> Iterator[Record]:
    document = _json_document(text)
    if kind.validate_document is not None:
        problem = kind.validate_document(document)
        if problem:
            raise RejectedFile(problem)
    if kind.records_key is None:
        if not isinstance(document, dict):
            raise RejectedFile("not a JSON object at the top level")
        yield Record(0, document)
        return
    if not isinstance(document, dict) or not isinstance(document.get(kind.records_key), list):
        raise RejectedFile(f"not a valid dataset: no '{kind.records_key}' list")
    limit = max_record_bytes()
    for index, item in enumerate(document[kind.records_key]):
        if not isinstance(item, dict):
            raise RejectedFile(f"not a valid dataset: {kind.records_key}[{index}] is not an object")
        missing = [k for k in kind.required if k not in item]
        if missing:
            raise RejectedFile(f"not a valid dataset: {kind.records_key}[{index}] lacks " + ", ".join(missing))
        text = json.dumps(item, ensure_ascii=False)
        size = len(text.encode()) if len(text) * 4 > limit else 0  # as in _csv_records
        if size > limit:
            yield Record(index, None, clipped(text), too_large(size))
            continue
        yield Record(index, item)


def read_records(text: str, kind: DropKind) -> Iterator[Record]:
    """All data records of a decoded file (raises RejectedFile for whole-file faults)."""
    if kind.fmt == "csv":
        _, records = _csv_records(text, kind.required)
        return records
    if kind.fmt == "jsonl":
        return _jsonl_records(text, kind.required)
    if kind.fmt == "json":
        return _json_records(text, kind)
    raise ValueError(f"unknown format {kind.fmt!r}")


def count_records(text: str, kind: DropKind) -> int:
    """Count data records (valid or not), independently of the row loader."""
    return sum(1 for _ in read_records(text, kind))


# ---------------------------------------------------------------------------
# Step 1: the manifest of observed files
# ---------------------------------------------------------------------------

MANIFEST_SCHEMA = pa.schema(
    [
        ("source_file", pa.string()),
        ("drop_date", pa.string()),
        ("kind", pa.string()),
        ("file_name", pa.string()),
        ("sha256", pa.string()),
        ("size_bytes", pa.int64()),
        ("modified_at", pa.timestamp("us")),
        ("encoding", pa.string()),
        ("status", pa.string()),
        ("reject_reason", pa.string()),
        ("duplicate_of", pa.string()),
        ("n_data_records", pa.int64()),
        ("n_lines", pa.int64()),
        ("loader", pa.string()),
        ("loader_note", pa.string()),
        ("observation_seq", pa.int64()),
        ("loaded_at", pa.timestamp("us")),
        ("load_id", pa.string()),
    ]
)


@dataclass(frozen=True)
class Observation:
    """One earlier row of the manifest."""

    source_file: str
    sha256: str
    status: str
    observation_seq: int
    size_bytes: int | None = None
    modified_at: datetime | None = None


def match_kind(relative: str) -> DropKind | None:
    for kind in kinds():
        if kind.pattern.fullmatch(relative):
            return kind
    return None


def match_kind_ignoring_case(relative: str) -> DropKind | None:
    """The kind whose file name pattern ``relative`` matches when letter
    case is ignored (``Resume_Agent_x.CSV``): a misnamed drop file."""
    for kind in kinds():
        if re.fullmatch(kind.pattern.pattern, relative, re.IGNORECASE):
            return kind
    return None


@dataclass(frozen=True)
class DropEntry:
    """Something under the drops folder that a night accounts for."""

    relative: str  # posix path under drops_dir
    path: Path
    problem: tuple[str, str] | None = None  # (status, reason) when it is not read


HIDDEN = "hidden {what} (its name starts with '.'): not read"
REMOVED = "no longer under the drops folder (its last loaded version, if any, keeps its scores)"


def list_drop_entries(drops_dir: Path) -> list[DropEntry]:
    """Everything under ``drops_dir`` a night accounts for, sorted by path:
    every regular file (to be read), and - not read, each with the status
    and reason ``ops.load_log`` records - hidden files and folders and links
    to folders (ignored), broken symbolic links, folders named like a drop
    file and files that are not regular files (rejected). Nothing under the
    folder is skipped without a trace."""
    if not drops_dir.is_dir():
        return []
    found: list[DropEntry] = []

    def entry(path: Path, problem: tuple[str, str] | None = None) -> None:
        found.append(DropEntry(path.relative_to(drops_dir).as_posix(), path, problem))

    for dirpath, dirnames, filenames in os.walk(drops_dir):
        base = Path(dirpath)
        descend = []
        for name in dirnames:
            path = base / name
            if name.startswith("."):
                entry(path, ("ignored", HIDDEN.format(what="folder")))
            elif match_kind(path.relative_to(drops_dir).as_posix()) is not None:
                entry(path, ("rejected", "a folder, not a file"))
            elif path.is_symlink():
                entry(path, ("ignored", "a link to a folder: not followed"))
            else:
                descend.append(name)
        dirnames[:] = sorted(descend)
        for name in filenames:
            path = base / name
            if name.startswith("."):
                entry(path, ("ignored", HIDDEN.format(what="file")))
            elif path.is_symlink() and not path.exists():
                entry(path, ("rejected", "a broken symbolic link: its target does not exist"))
            elif not path.is_file():
                entry(path, ("rejected", "not a regular file (a device, pipe or socket)"))
            else:
                entry(path)
    return sorted(found, key=lambda e: e.relative)


def not_read_sha256(reason: str) -> str:
    """The sha256 recorded for something that was not read (no bytes to
    hash): the hash of its reason, so the same problem is logged once, and
    a new one (or the file becoming readable) is a new observation."""
    return sha256_of(f"<not read> {reason}".encode())


def _modified_at(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).replace(tzinfo=None)


def _csv_encoding(path: Path, scan: csv_load.FileScan) -> str:
    """``encoding_of`` a CSV file scanned in chunks (the scan found where
    UTF-8 fails; CP949 is tried by reading the file again only then)."""

    def chunks() -> Iterator[bytes]:
        with path.open("rb") as handle:
            while chunk := handle.read(csv_load.CHUNK_BYTES):
                yield chunk

    return encoding_of(scan.head, scan.utf8_error_offset, chunks)


def _start_csv_check(path: Path, kind: DropKind) -> csv_load.Speculation | None:
    """Start DuckDB's pass over a file that looks like UTF-8 (from its first
    bytes), so that it runs while the byte scan reads the file."""
    with path.open("rb") as handle:
        head = handle.read(csv_load.HEAD_BYTES)
    whole = len(head) < csv_load.HEAD_BYTES
    encoding = "utf-8-sig" if head.startswith(b"\xef\xbb\xbf") else "utf-8"
    try:
        header = read_csv_header(head, encoding, kind.required, whole)
    except RejectedFile:
        return None  # not UTF-8 after all, or a header the check will reject
    if header is None or _duckdb_obstacle(path, encoding, header) is not None:
        return None
    return csv_load.Speculation(path, header)


def _check_csv_file(
    path: Path,
    kind: DropKind,
    scan: csv_load.FileScan,
    speculation: csv_load.Speculation | None = None,
) -> dict[str, Any]:
    """Encoding, header check and record count of a CSV file, and which
    parser loads it: DuckDB when it provably agrees with the exact parser
    (see agent_eval.csv_load), else the exact parser (``loader_note`` says why).
    Raises RejectedFile."""
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
    if note is None and header is not None:
        bom = 3 if encoding == "utf-8-sig" else 0
        if speculation is not None and speculation.header == header and encoding != "cp949":
            check = csv_load.verdict(header, counts, bom, speculation.result())
        else:
            with tempfile.TemporaryDirectory(prefix="agent_eval_check_") as scratch:
                utf8_path = path
                if encoding == "cp949":
                    utf8_path = csv_load.transcode_to_utf8(path, encoding, Path(scratch) / "utf8.csv")
                utf8_counts = counts if utf8_path == path else csv_load.scan_file(utf8_path).counts
                sums = csv_load.value_sums(utf8_path, len(header.names))
                check = csv_load.verdict(header, utf8_counts, bom, sums)
        if check.loader == csv_load.LOADER_DUCKDB:
            return facts | {"n_data_records": check.n_records, "loader": check.loader}
        note = check.loader_note
    text = decode(path.read_bytes(), encoding)
    return facts | {
        "n_data_records": count_records(text, kind),
        "loader": csv_load.LOADER_PYTHON,
        "loader_note": note,
    }


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


def _check_file(data: bytes, kind: DropKind) -> tuple[str, int]:
    """Return (encoding, data records) or raise RejectedFile."""
    if not data.strip():
        raise RejectedFile("empty file")
    encoding = detect_encoding(data)
    text = decode(data, encoding)
    return encoding, count_records(text, kind)


def manifest_rows(
    drops_dir: str | Path,
    history: Sequence[Observation] = (),
    load_id: str = "",
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """New observations of the files now under ``drops_dir``.

    ``history`` is the manifest so far. A path whose latest observation has
    the same sha256 adds nothing (re-runs are no-ops). Otherwise the new
    observation's status is:

    - ``loaded``: new bytes, readable; its records go to raw history.
    - ``repeat``: bytes already loaded from another path; counted once.
    - ``restored``: the path returns to bytes it held before; those rows
      are already in raw history and become current again.
    - ``rejected``: unreadable, missing required columns, or a drop folder
      that is not a date; ``reject_reason`` says which.
    - ``ignored``: a file that matches no input kind, a hidden file or
      folder, a link to a folder (recorded, not read).
    - ``removed``: a path observed before is no longer there. Its rows stay
      in raw history and its last loaded version stays current (raw history
      is the record); a rejection it had is no longer the latest word.
    """
    root = resolve_drops_dir(drops_dir)
    if not root.is_dir():
        raise FileNotFoundError(
            f"drops_dir {root} does not exist: set AGENT_EVAL_DROPS or "
            "--vars '{drops_dir: <folder>}' to the folder holding <YYYY-MM-DD>/ drops"
        )
    loaded_at = (now or datetime.now(UTC)).replace(tzinfo=None)
    latest_by_path: dict[str, Observation] = {}
    loaded_sha_path: dict[str, str] = {}
    loaded_by_path: dict[str, set[str]] = {}
    for obs in sorted(history, key=lambda o: o.observation_seq):
        latest_by_path[obs.source_file] = obs
        if obs.status == "loaded":
            loaded_sha_path.setdefault(obs.sha256, obs.source_file)
            loaded_by_path.setdefault(obs.source_file, set()).add(obs.sha256)
    seq = max((o.observation_seq for o in history), default=0)

    rows: list[dict[str, Any]] = []

    def add(row: dict[str, Any]) -> None:
        nonlocal seq
        seq += 1
        row["observation_seq"] = seq
        rows.append(row)

    def observation(
        relative: str, path: Path, kind: DropKind | None, sha: str, size: int | None, modified_at: datetime | None
    ) -> dict[str, Any]:
        return {
            "source_file": relative,
            "drop_date": relative.split("/", 1)[0],
            "kind": kind.name if kind else None,
            "file_name": path.name,
            "sha256": sha,
            "size_bytes": size,
            "modified_at": modified_at,
            "encoding": None,
            "status": None,
            "reject_reason": None,
            "duplicate_of": None,
            "n_data_records": None,
            "n_lines": None,
            "loader": None,
            "loader_note": None,
            "loaded_at": loaded_at,
            "load_id": load_id,
        }

    def not_read(relative: str, path: Path, status: str, reason: str) -> None:
        """Log what was not read, once per problem."""
        sha = not_read_sha256(reason)
        latest = latest_by_path.get(relative)
        if latest is not None and latest.sha256 == sha:
            return
        try:
            modified_at: datetime | None = datetime.fromtimestamp(path.lstat().st_mtime, UTC).replace(tzinfo=None)
        except OSError:
            modified_at = None
        add(
            observation(relative, path, match_kind(relative), sha, None, modified_at)
            | {"status": status, "reject_reason": reason}
        )

    entries = list_drop_entries(root)
    for found in entries:
        relative, path = found.relative, found.path
        if found.problem is not None:
            not_read(relative, path, *found.problem)
            continue
        latest = latest_by_path.get(relative)
        try:
            modified_at = _modified_at(path)
            size_now = path.stat().st_size
        except OSError as err:
            not_read(relative, path, "rejected", f"cannot be read: {err.strerror or err}")
            continue
        if latest is not None and latest.modified_at == modified_at and latest.size_bytes == size_now:
            continue  # same size and time as last observed: not read again
        kind = match_kind(relative)
        scan: csv_load.FileScan | None = None
        speculation: csv_load.Speculation | None = None
        data = b""
        try:
            if kind is not None and kind.fmt == "csv":
                # CSV files can be large: stream them, and let DuckDB read the
                # file at the same time (its result is used if the file is new)
                if is_drop_date(relative.split("/", 1)[0]):
                    speculation = _start_csv_check(path, kind)
                scan = csv_load.scan_file(path)
                sha, size = scan.sha256, scan.counts.size
            else:
                data = path.read_bytes()
                sha, size = sha256_of(data), len(data)
        except OSError as err:
            if speculation is not None:
                speculation.cancel()
            not_read(relative, path, "rejected", f"cannot be read: {err.strerror or err}")
            continue
        new_bytes = (
            (latest is None or latest.sha256 != sha)
            and kind is not None
            and sha not in loaded_by_path.get(relative, set())
            and sha not in loaded_sha_path
        )
        if speculation is not None and not new_bytes:
            speculation.cancel()
        if latest is not None and latest.sha256 == sha:
            continue  # nothing new at this path
        drop_date = relative.split("/", 1)[0]
        row = observation(relative, path, kind, sha, size, modified_at)
        misnamed = match_kind_ignoring_case(relative) if kind is None else None
        if misnamed is not None:
            row["status"] = "rejected"
            row["reject_reason"] = (
                f"file name looks like a {misnamed.name} drop but differs in letter case: "
                f"rename it to match {misnamed.pattern.pattern.replace(DATE_DIR, '<YYYY-MM-DD>')}"
            )
        elif kind is None:
            row["status"] = "ignored"
            row["reject_reason"] = "file name matches no input kind"
        elif not is_drop_date(drop_date):
            row["status"] = "rejected"
            row["reject_reason"] = f"drop folder '{drop_date}' is not a date (YYYY-MM-DD)"
        elif sha in loaded_by_path.get(relative, set()):
            row["status"] = "restored"
            row["duplicate_of"] = relative
        elif sha in loaded_sha_path and kind.dedupe_by_content:
            row["status"] = "repeat"
            row["duplicate_of"] = loaded_sha_path[sha]
        else:
            try:
                if scan is not None:
                    row.update(_check_csv_file(path, kind, scan, speculation))
                else:
                    row["encoding"], row["n_data_records"] = _check_file(data, kind)
                row["status"] = "loaded"
                loaded_sha_path[sha] = relative
                loaded_by_path.setdefault(relative, set()).add(sha)
            except RejectedFile as err:
                row["status"] = "rejected"
                row["reject_reason"] = str(err)
        add(row)
    # a path no longer under the folder: logged once, so a rejected file that
    # was deleted stops being reported; a loaded version keeps its scores
    present = {found.relative for found in entries}
    for relative, latest in sorted(latest_by_path.items()):
        if relative not in present and latest.status != "removed":
            add(
                observation(relative, root / relative, match_kind(relative), not_read_sha256(REMOVED), None, None)
                | {"status": "removed", "reject_reason": REMOVED}
            )
    return rows


def manifest_table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=MANIFEST_SCHEMA)


# ---------------------------------------------------------------------------
# Step 2: raw rows of one kind
# ---------------------------------------------------------------------------

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
        if not path.is_file() or (path.stat().st_size != item.size_bytes or _modified_at(path) != item.modified_at):
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


# ---------------------------------------------------------------------------
# Step 2b: the document header of json kinds with records (e.g. a dataset's
# name, version, thresholds and metadata: everything but the records)
# ---------------------------------------------------------------------------

HEADERS_SCHEMA = pa.schema(
    [
        ("source_file", pa.string()),
        ("sha256", pa.string()),
        ("loaded_at", pa.timestamp("us")),
        ("header_json", pa.string()),
    ]
)


def document_header(text: str, kind: DropKind) -> dict[str, Any]:
    """The top-level object of a json document without its records list."""
    document = _json_document(text)
    if not isinstance(document, dict):
        raise RejectedFile("not a JSON object at the top level")
    return {k: v for k, v in document.items() if k != kind.records_key}


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
