"""The dataset-level fields (name, version, thresholds, ...) of every
loaded summary_*.json version: one row per version, append-only.

The loader's one entry point (agent_eval.ingest.load_headers) does the work; this
model names its kind and hands over what dbt reads from a Python model's
own source: the manifest it depends on.
"""

from agent_eval.ingest import load_headers


def model(dbt, session):
    return load_headers(dbt, session, "summary", dbt.ref("raw_drop_files"))
