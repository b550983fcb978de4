"""The header (version, eval id, description, each column's metrics,
stats) of every loaded promptfoo output version: one row per version,
append-only.

The loader's one entry point (agent_eval.ingest.load_headers) does the work.
"""

from agent_eval.ingest import load_headers


def model(dbt, session):
    return load_headers(dbt, session, "promptfoo_output", dbt.ref("raw_drop_files"))
