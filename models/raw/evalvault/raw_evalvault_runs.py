"""The run (id, dataset, model, thresholds) and the figures EvalVault
reported for it (its pass rate, each metric's mean and pass rate) of every
loaded EvalVault run export version: one row per version, append-only.

The loader's one entry point (agent_eval.ingest.load_headers) does the work.
"""

from agent_eval.ingest import load_headers


def model(dbt, session):
    return load_headers(dbt, session, "evalvault_run", dbt.ref("raw_drop_files"))
