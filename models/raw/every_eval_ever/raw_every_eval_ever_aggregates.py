"""The header (schema version, evaluation id, source, library, model, each
evaluation result named with its reported figures, the instance file) of
every loaded Every Eval Ever aggregate version: one row per version,
append-only.

The loader's one entry point (agent_eval.ingest.load_headers) does the work.
"""

from agent_eval.ingest import load_headers


def model(dbt, session):
    return load_headers(dbt, session, "every_eval_ever_aggregate", dbt.ref("raw_drop_files"))
