"""Every line of every loaded engagement actions.jsonl version: append-only.

Files: <drops_dir>/<date>/engagement/<run_id>/<agent_id>/actions.jsonl.
Thin shim: parsing lives in agent_eval.ingest (encodings detected by the
manifest; a line that is not a JSON object is kept with its reason).
"""

from agent_eval.ingest import PendingFile, rows_table

KIND = "engagement_actions"


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
    return rows_table(KIND, drops_dir, pending)
