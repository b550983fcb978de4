"""What a drop kind is: one kind of input file and how to read it.

Each agent's module (agent_eval.registry) defines its kinds with
:class:`DropKind`; the loader (agent_eval.ingest) matches drop files against
the registered agents' kinds. Light on purpose: the loader imports it inside
dbt's Python models.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the drop date folder at the start of every kind's pattern
DATE_DIR = r"(?P<drop_date>[^/]+)"


@dataclass(frozen=True)
class DropKind:
    """One kind of input file and how to read it.

    ``fmt`` is ``csv`` (header + records), ``jsonl`` (one JSON object per
    line) or ``json`` (one JSON document whose records are ``records_key``).
    ``validate_document`` (json kinds) returns why a whole document cannot
    be used, or None: the file is rejected with that reason.
    ``dedupe_by_content``: identical bytes already loaded from another path
    are a ``repeat`` (counted once). False for files whose meaning depends on
    their folder (an engagement run's expected.json is often the same bytes
    for every run, yet each run needs its own).

    ``fmt`` ``log`` is a file another tool wrote in its own format (an
    Inspect AI log): ``reader(path)`` returns its header (a dict of
    document-level fields, or None) and its records
    (``agent_eval.ingest.records.Record``, values a dict each), reading the
    file itself (it may stream a large file), or those records already in
    landed form (a pyarrow Table of ``agent_eval.ingest.landing.records_schema``:
    a reader that has DuckDB read the file); it raises
    ``agent_eval.ingest.common.RejectedFile`` for a file that cannot be used
    as a whole.

    ``companions(path)`` (``log`` kinds) names the files its reader reads
    with the file (an aggregate's instance file beside it), from the path
    alone (it is called for every file every night): their bytes are part
    of the file's version (sha256, size, modification time), so a companion
    delivered or replaced later makes the file a new version, read again;
    the companions themselves are recorded as ``ignored``, read with it.
    """

    name: str
    pattern: re.Pattern[str]
    fmt: str
    required: tuple[str, ...] = ()
    records_key: str | None = None
    validate_document: Callable[[Any], str | None] | None = None
    dedupe_by_content: bool = True
    reader: Callable[[Any], tuple[dict[str, Any] | None, Any]] | None = None
    companions: Callable[[Path], tuple[Path, ...]] | None = None

    @property
    def has_header(self) -> bool:
        """Whether the kind's files have document-level fields (a header
        beside the records: ``ingest.load_headers``)."""
        return (self.fmt == "json" and self.records_key is not None) or self.fmt == "log"
