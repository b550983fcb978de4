"""Every sample record (one per sample id and epoch) of every loaded Inspect
AI log version: append-only raw history, a sample that cannot be used kept
with its member and reason.

The loader's one entry point (agent_eval.ingest.load_records) does the work;
the kind's reader (agent_eval.agents.inspect.reader) reads the log member
by member.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "inspect_log", dbt.ref("raw_drop_files"))
