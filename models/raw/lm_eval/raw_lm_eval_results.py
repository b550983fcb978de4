"""The run's fields (lm-eval version, model, config, timing, groups) of
every loaded lm-evaluation-harness results file version: one row per
version, append-only.

The loader's one entry point (agent_eval.ingest.load_headers) does the work;
the kind's reader is agent_eval.agents.lm_eval.reader.read_results.
"""

from agent_eval.ingest import load_headers


def model(dbt, session):
    return load_headers(dbt, session, "lm_eval_results", dbt.ref("raw_drop_files"))
