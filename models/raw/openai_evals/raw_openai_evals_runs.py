"""The header (the spec line and the final report) of every loaded OpenAI
Evals record file version: one row per version, append-only.

The loader's one entry point (agent_eval.ingest.load_headers) does the work.
"""

from agent_eval.ingest import load_headers


def model(dbt, session):
    return load_headers(dbt, session, "openai_evals_record", dbt.ref("raw_drop_files"))
