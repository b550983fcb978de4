"""Every line of every loaded engagement actions.jsonl version
(<date>/engagement/<run_id>/<agent_id>/actions.jsonl): append-only raw
history, a line that is not a JSON object kept with its reason.

The loader's one entry point (agent_eval.ingest.load_records) does the work; this
model names its kind and hands over what dbt reads from a Python model's
own source: the manifest it depends on.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "engagement_actions", dbt.ref("raw_drop_files"))
