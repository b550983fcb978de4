"""Every test case of every loaded summary_*.json dataset version:
append-only, one row per element of test_cases (line_number = its index).

Thin shim: parsing lives in agent_eval.ingest (a file that is not a valid
EvalVault dataset is rejected whole by the manifest step).
"""

from agent_eval.ingest import PendingFile, rows_table

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
    return rows_table(KIND, drops_dir, pending)
