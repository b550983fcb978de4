"""Unicode normalization of what a drop delivers.

macOS writes file names, and often text pasted from its apps, in NFD
(Hangul as decomposed jamo): ``'선택' in nfd_text`` is False. The warehouse
identifies files by the NFC form of their path and matches text in its NFC
form (the staging models normalize what they match; raw history keeps the
delivered text). The manifest notes, in ``ops.load_log.loader_note``, a file
whose name or text was not NFC.
"""

from __future__ import annotations

import unicodedata

from agent_eval.ingest.common import complete_utf8_prefix

NAME_NOT_NFC = "file name not in Unicode NFC (decomposed, as macOS writes it): identified by its NFC form"
TEXT_NOT_NFC = "text not in Unicode NFC (decomposed, as macOS writes it): matched in its NFC form"

# characters of the previous chunk kept as the context of the next: a
# combining sequence split between two chunks is checked whole
CONTEXT_CHARS = 32


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def is_nfc(text: str) -> bool:
    return unicodedata.is_normalized("NFC", text)


class NfcCheck:
    """Whether UTF-8 text read in chunks is all in NFC (``is_nfc``).

    ASCII chunks cost a byte test; others are decoded and checked with the
    end of the previous chunk in front (undecodable bytes are the encoding
    check's to report, not this one's)."""

    def __init__(self) -> None:
        self.is_nfc = True
        self._carry = b""
        self._context = ""

    def feed(self, chunk: bytes, final: bool = False) -> None:
        if not self.is_nfc:
            return
        data = self._carry + chunk if self._carry else chunk
        if data.isascii():
            self._carry = b""
            self._context = data[-CONTEXT_CHARS:].decode("ascii")
            return
        cut = len(data) if final else complete_utf8_prefix(data)
        text = data[:cut].decode("utf-8", "replace")
        self._carry = bytes(data[cut:])
        if not is_nfc(self._context + text):
            self.is_nfc = False
        self._context = text[-CONTEXT_CHARS:]
