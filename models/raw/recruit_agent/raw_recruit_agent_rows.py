"""Every data record of every loaded recruit_agent_*.jsonl version:
append-only raw history (one record per non-blank line; a line that is not
a JSON object or lacks itemId / queryId / raw is kept with its line number,
raw text and reason).

The loader's one entry point (agent_eval.ingest.load_records) does the work; this
model names its kind and hands over what dbt reads from a Python model's
own source: the manifest it depends on.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "recruit_agent", dbt.ref("raw_drop_files"))
