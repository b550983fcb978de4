"""Every data record of every loaded resume_agent_*.csv version:
append-only raw history (DuckDB's CSV reader where the manifest found it
exact, else the exact parser; a record that cannot be parsed is kept with
its line number, raw text and reason).

The loader's one entry point (agent_eval.ingest.load_records) does the work; this
model names its kind and hands over what dbt reads from a Python model's
own source: the manifest it depends on.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "resume_agent", dbt.ref("raw_drop_files"))
