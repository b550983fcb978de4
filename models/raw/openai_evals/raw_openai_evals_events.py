"""Every event (one line after the spec) of every loaded OpenAI Evals record
file version: append-only raw history, an event that cannot be used kept
with its reason.

The loader's one entry point (agent_eval.ingest.load_records) does the
work; the kind's reader (agent_eval.agents.openai_evals.reader) reads the
file line by line.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "openai_evals_record", dbt.ref("raw_drop_files"))
