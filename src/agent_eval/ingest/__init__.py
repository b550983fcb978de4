"""Getting drop files into raw history.

This package is the only place that touches drop files. dbt Python models call
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

The package's imports run one way: ``common`` (errors, hashing, the
drops folder, the record size limit) <- ``encodings`` <- ``csv_load``
(DuckDB's CSV reader and the checks that it reads a file exactly) <-
``records`` (CSV / JSONL / JSON records) <- ``manifest`` (step 1) and
``rows`` (step 2); ``kinds`` reads the registered agents' drop kinds. This
module only names the public parts.
"""

from __future__ import annotations

from agent_eval.ingest import csv_load
from agent_eval.ingest.common import (
    RejectedFile,
    is_drop_date,
    max_record_bytes,
    max_record_mb,
    resolve_drops_dir,
    sha256_of,
)
from agent_eval.ingest.encodings import decode, detect_encoding, encoding_of
from agent_eval.ingest.kinds import kind_named, kinds, match_kind, match_kind_ignoring_case
from agent_eval.ingest.manifest import Observation, manifest_rows, manifest_table
from agent_eval.ingest.records import count_records, document_header, read_csv_header, read_records
from agent_eval.ingest.rows import (
    PendingFile,
    csv_rows_relation,
    csv_rows_schema,
    headers_table,
    json_rows_schema,
    load_headers,
    load_records,
    pending_files,
    rows_table,
)

__all__ = [
    "Observation",
    "PendingFile",
    "RejectedFile",
    "count_records",
    "csv_load",
    "csv_rows_relation",
    "csv_rows_schema",
    "decode",
    "detect_encoding",
    "document_header",
    "encoding_of",
    "headers_table",
    "is_drop_date",
    "json_rows_schema",
    "kind_named",
    "kinds",
    "load_headers",
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
    "resolve_drops_dir",
    "rows_table",
    "sha256_of",
]
