"""Every test case of every loaded summary_*.json (EvalVault dataset)
version: append-only raw history, a case that cannot be parsed kept with
its index and reason.

The loader's one entry point (agent_eval.ingest.load_records) does the work; this
model names its kind and hands over what dbt reads from a Python model's
own source: the manifest it depends on.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "summary", dbt.ref("raw_drop_files"))
