"""Every data record of every loaded resume_agent_*.csv version: append-only.

Thin shim: loading lives in agent_eval.ingest / agent_eval.csv_load (dialect
pinned, encodings detected by the manifest, DuckDB's reader where the
manifest proved it agrees with the exact parser, malformed records kept with
their reason). The result is a DuckDB relation: rows stream from the files
into the table, never through Python objects.
"""

from agent_eval.ingest import PendingFile, csv_rows_relation

KIND = "resume_agent"


def model(dbt, session):
    drops_dir = dbt.config.get("drops_dir")
    loaded = (
        dbt.ref("raw_drop_files")
        .filter(f"kind = '{KIND}' and status = 'loaded'")
        .order("observation_seq")
        .project(
            "source_file, sha256, encoding, loaded_at, loader, n_lines,"
            " n_data_records, size_bytes, modified_at"
        )
        .fetchall()
    )
    done = set()
    if dbt.is_incremental and loaded:
        # A literal list prunes row groups by their sha256 statistics: the
        # cost follows the number of files, not the rows in history.
        shas = ", ".join(sorted({f"'{row[1]}'" for row in loaded}))
        done = set(
            session.sql(
                f"select distinct source_file, sha256 from {dbt.this}"
                f" where sha256 in ({shas})"
            ).fetchall()
        )
    pending = [PendingFile(*row) for row in loaded if (row[0], row[1]) not in done]
    return csv_rows_relation(session, KIND, drops_dir, pending)
