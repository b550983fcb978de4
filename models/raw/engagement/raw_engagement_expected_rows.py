"""The ground truth of every loaded engagement expected.json version
(<date>/engagement/<run_id>/expected.json): append-only raw history.

The loader's one entry point (agent_eval.ingest.load_records) does the work; this
model names its kind and hands over what dbt reads from a Python model's
own source: the manifest it depends on.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "engagement_expected", dbt.ref("raw_drop_files"))
