"""The one encoding rule of every drop file (UTF-8 with or without BOM, UTF-16, CP949)."""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable

from agent_eval.ingest.common import RejectedFile

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
