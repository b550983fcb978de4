"""Getting drop files into raw history.

This package is the only place that touches drop files. dbt Python models call
it (``models/raw/common/raw_drop_files.py`` and one ``raw_<kind>_rows.py``
per input kind), so ``dbt build`` alone loads new drops.

Two steps, one mechanism for every input kind:

1. :func:`manifest_rows` lists every file under ``drops_dir``, matches it to
   a :class:`DropKind`, hashes it and parses every new version *once*
   (``parse``): its encoding, whole-file checks (header, JSON shape), its
   data records counted and landed in the warehouse's landing folder
   (``landing``). It returns *new observations* only: a file whose bytes
   were already observed at the same path adds nothing, so re-running
   changes nothing.
2. :func:`load_records` returns the landed records of the observations
   marked ``loaded`` that are not yet in the kind's raw table, as raw rows;
   no drop file is read again (unless its landing is gone: then it is
   parsed again, if it still has the recorded bytes). Every data record is one row, the ones that
   cannot be parsed included (with ``reject_reason`` and their raw text),
   so rows are never dropped.

The kinds are the registered agents' (``agent_eval.registry``): adding an
input kind means adding a :class:`~agent_eval.drop_kinds.DropKind` (pattern,
format, required fields) to its agent's module and a thin
``raw_<kind>_rows.py`` model (docs/adding-an-agent.md).

The package's imports run one way: ``common`` (errors, hashing, the
drops folder, the record size limit) <- ``encodings`` and
``unicode_form`` (NFC: paths and text as macOS writes them) <- ``csv_load``
(DuckDB's CSV reader and the checks that it reads a file exactly) <-
``records`` (the exact parser: CSV / JSONL / JSON records; ``json_stream``
reads another tool's large JSON one value at a time) <- ``landing``
(where parsed rows wait for the loaders) <- ``parse`` (the one parse of a
version) <- ``manifest`` (step 1) and ``rows`` (step 2); ``kinds`` reads the
registered agents' drop kinds. This module only names the public parts.
"""

from __future__ import annotations

from agent_eval.ingest import csv_load
from agent_eval.ingest.common import (
    FileChanged,
    RejectedFile,
    is_drop_date,
    max_record_bytes,
    max_record_mb,
    resolve_drops_dir,
    sha256_of,
)
from agent_eval.ingest.encodings import decode, detect_encoding, encoding_of
from agent_eval.ingest.kinds import kind_named, kinds, match_kind, match_kind_ignoring_case
from agent_eval.ingest.landing import landing_root
from agent_eval.ingest.manifest import Observation, manifest_rows, manifest_table
from agent_eval.ingest.parse import records_table
from agent_eval.ingest.records import read_csv_header, read_records
from agent_eval.ingest.rows import (
    PendingFile,
    headers_table,
    load_headers,
    load_pending,
    load_records,
    pending_files,
)

__all__ = [
    "FileChanged",
    "Observation",
    "PendingFile",
    "RejectedFile",
    "csv_load",
    "decode",
    "detect_encoding",
    "encoding_of",
    "headers_table",
    "is_drop_date",
    "kind_named",
    "kinds",
    "landing_root",
    "load_headers",
    "load_pending",
    "load_records",
    "manifest_rows",
    "manifest_table",
    "match_kind",
    "match_kind_ignoring_case",
    "max_record_bytes",
    "max_record_mb",
    "pending_files",
    "read_csv_header",
    "read_records",
    "records_table",
    "resolve_drops_dir",
    "sha256_of",
]
