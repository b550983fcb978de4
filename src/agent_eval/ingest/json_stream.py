"""A JSON document read as a stream: one value at a time.

Another tool's JSON export may be large, and its bulk is usually one list
(results, samples): a reader walks the document's objects key by key and
decodes that list element by element, so that only one element is in
memory at a time. Everything is decoded by the standard library's decoder
(``json.JSONDecoder.raw_decode``), so a value means what ``json.loads``
makes of it (a bare ``NaN`` token included).

A fault (not JSON, cut short, not the expected shape) raises
``RejectedFile`` with a reason a user can act on; ``what`` names the kind
of document in it ("not <what>: expected '{' ...").
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

from agent_eval.ingest.common import RejectedFile, as_decode_error

CHUNK = 1 << 20
_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\r\n"


class JsonStream:
    """A JSON text read in chunks from ``handle``: values are decoded one
    at a time (a value that straddles a chunk is retried with more text)."""

    def __init__(self, handle: io.TextIOBase, what: str) -> None:
        self.handle = handle
        self.what = what
        self.buf = ""
        self.pos = 0
        self.eof = False

    def _more(self, at_least: int = CHUNK) -> bool:
        if self.eof:
            return False
        data = self.handle.read(max(CHUNK, at_least))
        if not data:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + data
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more():
                return ""

    def expect(self, char: str) -> None:
        found = self.peek()
        if found != char:
            raise RejectedFile(f"not {self.what}: expected {char!r}, found {found[:1]!r}")
        self.pos += 1

    def value(self) -> Any:
        """The next value, decoded (or skipped, by a caller that drops it)."""
        self.peek()
        want = CHUNK
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as err:
                if self._more(want):
                    want *= 2  # a large value: read more at once, not quadratically
                    continue
                raise RejectedFile(f"not valid JSON: {err}") from None
            except (RecursionError, ValueError) as err:
                decode_error = as_decode_error(err, self.buf)
                if decode_error is None:
                    raise
                raise RejectedFile(f"not valid JSON: {decode_error}") from None
            if end == len(self.buf) and not self.eof and self._more(want):
                continue  # a number at the end of the text read may go on
            self.pos = end
            return value

    def members(self) -> Iterator[str]:
        """The keys of the object that starts here; after each key the
        caller reads (or skips with value()) its value."""
        self.expect("{")
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            key = self.value()
            if not isinstance(key, str):
                raise RejectedFile("not valid JSON: an object key is not a string")
            self.expect(":")
            yield key
            after = self.peek()
            self.pos += 1
            if after == "}":
                return
            if after != ",":
                raise RejectedFile(f"not valid JSON: expected ',' or '}}' after {key!r}")

    def elements(self) -> Iterator[Any]:
        """The elements of the array that starts here, one at a time."""
        self.expect("[")
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            yield self.value()
            after = self.peek()
            self.pos += 1
            if after == "]":
                return
            if after != ",":
                raise RejectedFile("not valid JSON: expected ',' or ']' between elements")
