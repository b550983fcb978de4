"""Small parts every step of the loader shares: the errors of a file that cannot be loaded or changed while read, hashing, drop dates, the drops folder, the record size limit."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from agent_eval import settings


class RejectedFile(Exception):
    """The whole file cannot be loaded; the message is the recorded reason."""


class FileChanged(Exception):
    """The file changed while it was read (its size or modification time):
    nothing of it is recorded; the next build reads the new bytes."""


# Arrays and objects nested deeper than this are named in the reason of a
# document Python's decoder cannot read for its depth.
NESTING_NAMED = 512
_NESTING_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_LONG_INTEGER = re.compile(rf"-?\d{{{sys.get_int_max_str_digits() + 1},}}")


def json_loads(text: str | bytes, **kwargs: Any) -> Any:
    """``json.loads``, raising ``json.JSONDecodeError`` for the two inputs
    on which Python's decoder raises something else (``as_decode_error``),
    so that every reader rejects them as it rejects any text that is not
    JSON."""
    try:
        return json.loads(text, **kwargs)
    except (RecursionError, ValueError) as err:
        decode_error = as_decode_error(err, text)
        if decode_error is None:
            raise
        raise decode_error from None


def as_decode_error(err: BaseException, text: str | bytes) -> json.JSONDecodeError | None:
    """``err``, raised by Python's JSON decoder reading ``text``, as a
    ``json.JSONDecodeError``: arrays and objects nested deeper than the
    interpreter's recursion (RecursionError), an integer of more digits
    than ``int`` converts (ValueError). None for any other error."""
    if isinstance(err, json.JSONDecodeError):
        return err
    doc = _as_text(text)
    if isinstance(err, RecursionError):
        return json.JSONDecodeError(
            f"arrays and objects nested deeper than {NESTING_NAMED} levels", doc, _too_deep_at(doc)
        )
    found = _LONG_INTEGER.search(doc) if isinstance(err, ValueError) else None
    if found is None:
        return None
    return json.JSONDecodeError(f"an integer of more than {sys.get_int_max_str_digits()} digits", doc, found.start())


def _as_text(text: str | bytes) -> str:
    return text if isinstance(text, str) else text.decode("utf-8", "replace")


def _too_deep_at(doc: str) -> int:
    """Where nesting first passes NESTING_NAMED levels (0 if it does not)."""
    depth = 0
    for token in _NESTING_TOKEN.finditer(doc):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > NESTING_NAMED:
                return token.start()
        elif char in "]}":
            depth -= 1
    return 0


def surrogates_escaped(text: str) -> str:
    """``text`` with each lone surrogate written as its \\u escape (a
    reason or a record that quotes one, kept as UTF-8)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def is_integer(value: Any, bits: int = 64) -> bool:
    """A JSON integer (not a boolean) that a signed ``bits``-bit column
    holds: what staging casts an identity field to (a larger one would
    cast to null and break its table's grain)."""
    bound = 1 << (bits - 1)
    return isinstance(value, int) and not isinstance(value, bool) and -bound <= value < bound


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def sha256_of_file(path: Path, chunk_bytes: int = 1 << 20) -> str:
    """sha256 of a file read in chunks (a large file is never held whole)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(chunk_bytes):
            digest.update(chunk)
    return digest.hexdigest()


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


def resolve_drops_dir(drops_dir: str | Path | None = None) -> Path:
    """The drops folder: ``drops_dir`` when given, else $AGENT_EVAL_DROPS
    (which `agent-eval` sets for dbt), else ``data/drops``; relative to the
    directory dbt runs in. Read when the loader runs, not when dbt parses
    the project (not a dbt var), so a new drops folder never invalidates
    dbt's saved parse state."""
    chosen = drops_dir or settings.value("AGENT_EVAL_DROPS") or "data/drops"
    return Path(chosen).expanduser().resolve()


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
    return settings.value(MAX_RECORD_ENV) or DEFAULT_MAX_RECORD_MB


def max_record_bytes() -> int:
    return int(max_record_mb() * 2**20)


def too_large(size_bytes: int) -> str:
    return f"record_too_large: {size_bytes / 2**20:.1f} MB, over the limit of {max_record_mb():g} MB ({MAX_RECORD_ENV})"


def clipped(text: str) -> str:
    """An oversized record's text as kept in raw history: its start, and its length."""
    if len(text) <= OVERSIZED_TEXT_KEPT:
        return text
    return text[:OVERSIZED_TEXT_KEPT] + f"… [{len(text):,} characters; cut]"


def file_modified_at(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).replace(tzinfo=None)


def complete_utf8_prefix(data: bytes) -> int:
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
