"""Every line (one document under one filter) of every loaded
lm-evaluation-harness samples file version: append-only raw history, a
line that cannot be used kept with its reason.

The loader's one entry point (agent_eval.ingest.load_records) does the
work; the kind's reader (agent_eval.agents.lm_eval.reader.read_samples)
streams the file line by line.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "lm_eval_samples", dbt.ref("raw_drop_files"))
