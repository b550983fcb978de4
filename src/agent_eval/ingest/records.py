"""The exact parser: the data records of a drop file, CSV (header + records, with the physical line each starts on), JSONL (one object per line), JSON (a document whose records are a list)."""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from agent_eval.drop_kinds import DropKind
from agent_eval.ingest import csv_load
from agent_eval.ingest.common import (
    MAX_RECORD_ENV,
    RejectedFile,
    clipped,
    json_loads,
    max_record_bytes,
    max_record_mb,
    too_large,
)
from agent_eval.ingest.unicode_form import nfc

# A \u escape of a surrogate outside a pair (\ud800 alone) parses to a
# Python string that is no text: it has no UTF-8 and no column can hold it.
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # in JSON text: the precise check is needed
LONE_SURROGATE = "invalid_json: a \\u escape of a lone surrogate (\\ud800-\\udfff) is not a character"


def _holds_lone_surrogate(value: Any) -> bool:
    return holds_lone_surrogate_text(json.dumps(value, ensure_ascii=False))


def holds_lone_surrogate_text(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (it then has no UTF-8)."""
    return _SURROGATE.search(text) is not None


def parsed_lone_surrogate(text: str, value: Any) -> bool:
    """Whether ``value``, parsed from the JSON ``text``, holds a lone
    surrogate; walked only when the text has the escape of one."""
    return _SURROGATE_ESCAPE.search(text) is not None and _holds_lone_surrogate(value)


@dataclass
class Record:
    """One data record of a file: parsed values or the reason it was not."""

    line_number: int
    values: dict[str, Any] | None
    raw_text: str | None = None
    reject_reason: str | None = None
    # the values as JSON text, when the reader wrote them already (a reader
    # that checks what it writes need not walk the values twice)
    values_json: str | None = None


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
    # column names are matched in NFC, like every label (ingest.unicode_form)
    header = [nfc(h.strip()) for h in header_row]
    if header and header[0].startswith("\ufeff"):
        header[0] = header[0].lstrip("\ufeff")
    duplicated = sorted(h for h, n in Counter(header).items() if n > 1 and h)
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
    if not whole_file:
        # the head's last line may be cut where the head ends: the header
        # record is checked only when it ends within the complete lines (a
        # header of 15,000 columns is longer than the head)
        lines = lines[:-1]
        try:
            next(_csv_reader(lines))
        except (StopIteration, csv.Error):
            return None
    reader = _csv_reader(lines)
    names = _read_header(reader, required)
    if not whole_file and reader.line_num >= len(lines):
        return None
    return csv_load.Header(names, reader.line_num, "".join(lines[: reader.line_num]))


class _RecordLines:
    """The physical lines of a CSV text for csv.reader, read one at a time
    (the text is never held whole), keeping those of the record being read
    (``pending``) for its raw text. While ``cap`` is set (the header), a
    record of more than ``cap`` characters raises _HeaderTooLarge before
    more of it is read: no line longer than the cap is read whole."""

    def __init__(self, handle: IO[str], cap: int | None) -> None:
        self.handle = handle
        self.cap = cap
        self.pending: list[str] = []
        self.pending_chars = 0

    def __iter__(self) -> _RecordLines:
        return self

    def __next__(self) -> str:
        if self.cap is None:
            line = self.handle.readline()
        else:
            room = self.cap - self.pending_chars
            line = self.handle.readline(room + 1)
            if len(line) > room:
                raise _HeaderTooLarge
        if not line:
            raise StopIteration
        self.pending.append(line)
        self.pending_chars += len(line)
        return line

    def take(self) -> list[str]:
        """The lines of the record just read; the next record starts anew."""
        lines, self.pending, self.pending_chars = self.pending, [], 0
        return lines


class _HeaderTooLarge(Exception):
    """The header record is longer than the record limit."""


def _header_too_large() -> RejectedFile:
    return RejectedFile(
        f"header too large: the header record (line 1) is over the record limit of "
        f"{max_record_mb():g} MB ({MAX_RECORD_ENV}): record_too_large"
    )


def _csv_records(source: str | IO[str], required: Sequence[str]) -> tuple[list[str], Iterator[Record]]:
    """Split CSV text (a string, or a text stream opened with newline='')
    into header and records, with physical line numbers.

    The dialect is pinned (comma, double quote, no sniffing). Quoted cells may
    span lines; ``line_number`` is the line a record starts on (the header
    is line 1). Blank lines between records are not data records. The text
    is read line by line and only the record being read is kept, so memory
    follows the record, not the file: a header over the record limit
    rejects the file (RejectedFile) before more of it is read than the
    limit; a data record over it is rejected with reason record_too_large.
    """
    handle = io.StringIO(source, newline="") if isinstance(source, str) else source
    limit = max_record_bytes()
    # UTF-8 takes at least 1 byte a character: more characters than the
    # limit are more bytes
    lines = _RecordLines(handle, cap=limit)
    reader = _csv_reader(lines)
    try:
        header = _read_header(reader, required)
    except _HeaderTooLarge:
        raise _header_too_large() from None
    header_lines = lines.take()
    if sum(len(line) for line in header_lines) * 4 > limit and len("".join(header_lines).encode()) > limit:
        raise _header_too_large()
    lines.cap = None

    def records() -> Iterator[Record]:
        previous_end = reader.line_num
        while True:
            start = previous_end + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as err:
                previous_end = max(reader.line_num, start)
                raw = "".join(lines.take())
                oversized = "field larger than field limit" in str(err)
                yield Record(
                    line_number=start,
                    values=None,
                    raw_text=clipped(raw) if oversized else raw,
                    reject_reason=too_large(len(raw.encode())) if oversized else f"malformed_csv: {err}",
                )
                continue
            previous_end = reader.line_num
            record_lines = lines.take()
            if not row:  # a blank line is not a data record
                continue
            # UTF-8 takes at most 4 bytes a character: encode only a record
            # that may be over the limit
            if sum(len(line) for line in record_lines) * 4 > limit:
                raw = "".join(record_lines)
                size = len(raw.encode())
                if size > limit:
                    yield Record(line_number=start, values=None, raw_text=clipped(raw), reject_reason=too_large(size))
                    continue
            if len(row) != len(header):
                yield Record(
                    line_number=start,
                    values=None,
                    raw_text="".join(record_lines),
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
            value = json_loads(stripped)
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
        if parsed_lone_surrogate(stripped, value):
            yield Record(number, None, line, LONE_SURROGATE)
            continue
        yield Record(number, value)


def json_document(text: str) -> Any:
    """A JSON document, parsed (raises RejectedFile naming the line and column)."""
    try:
        return json_loads(text)
    except json.JSONDecodeError as err:
        raise RejectedFile(f"not valid JSON: {err.msg} at line {err.lineno} column {err.colno}") from None


def document_records(document: Any, kind: DropKind) -> Iterator[Record]:
    """The records of a parsed JSON document (raises RejectedFile for a
    document that cannot be used as a whole)."""
    if kind.validate_document is not None:
        problem = kind.validate_document(document)
        if problem:
            raise RejectedFile(problem)
    if kind.records_key is None:
        if not isinstance(document, dict):
            raise RejectedFile("not a JSON object at the top level")
        if _holds_lone_surrogate(document):
            yield Record(0, None, clipped(json.dumps(document)), LONE_SURROGATE)
            return
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
        if holds_lone_surrogate_text(text):
            yield Record(index, None, clipped(json.dumps(item)), LONE_SURROGATE)
            continue
        size = len(text.encode()) if len(text) * 4 > limit else 0  # as in _csv_records
        if size > limit:
            yield Record(index, None, clipped(text), too_large(size))
            continue
        yield Record(index, item)


def read_records(text: str | IO[str], kind: DropKind) -> Iterator[Record]:
    """All data records of a decoded file, or of a CSV text stream opened
    with newline='' (raises RejectedFile for whole-file faults)."""
    if kind.fmt == "csv":
        _, records = _csv_records(text, kind.required)
        return records
    assert isinstance(text, str), "only a CSV file is read as a stream"
    if kind.fmt == "jsonl":
        return _jsonl_records(text, kind.required)
    if kind.fmt == "json":
        return document_records(json_document(text), kind)
    raise ValueError(f"unknown format {kind.fmt!r}")


def document_header(document: Any, kind: DropKind) -> dict[str, Any] | None:
    """The top-level fields of a parsed JSON document of a kind whose
    records are a list, without that list (None for other kinds)."""
    if kind.fmt != "json" or kind.records_key is None or not isinstance(document, dict):
        return None
    header = {k: v for k, v in document.items() if k != kind.records_key}
    if _holds_lone_surrogate(header):
        raise RejectedFile(f"not valid JSON: {LONE_SURROGATE.removeprefix('invalid_json: ')}, in a top-level field")
    return header
