"""The dataset header (name, version, thresholds, metadata: everything but
test_cases) of every loaded summary_*.json version: append-only.

Thin shim: reading lives in agent_eval.ingest (headers_table).
"""

from agent_eval.ingest import PendingFile, headers_table

KIND = "summary"


def model(dbt, session):
    drops_dir = dbt.config.get("drops_dir")
    files = dbt.ref("raw_drop_files")
    done = set()
    if dbt.is_incremental:
        done = set(
            session.sql(
                f"select distinct source_file, sha256 from {dbt.this}"
            ).fetchall()
        )
    pending = [
        PendingFile(*row)
        for row in files.filter(f"kind = '{KIND}' and status = 'loaded'")
        .order("observation_seq")
        .project("source_file, sha256, encoding, loaded_at")
        .fetchall()
        if (row[0], row[1]) not in done
    ]
    return headers_table(KIND, drops_dir, pending)
