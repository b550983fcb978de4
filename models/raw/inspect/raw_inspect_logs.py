"""The header (status, task, model, results, stats) of every loaded Inspect
AI log version: one row per version, append-only.

The loader's one entry point (agent_eval.ingest.load_headers) does the work.
"""

from agent_eval.ingest import load_headers


def model(dbt, session):
    return load_headers(dbt, session, "inspect_log", dbt.ref("raw_drop_files"))
