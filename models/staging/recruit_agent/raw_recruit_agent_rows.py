"""Every data record of every loaded recruit_agent_*.jsonl version: append-only.

Thin shim: parsing lives in agent_eval.ingest (one record per non-blank line;
a line that is not a JSON object or lacks itemId / queryId / raw is kept with
its line number, raw text and reason).
"""

from agent_eval.ingest import PendingFile, rows_table

KIND = "recruit_agent"


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
