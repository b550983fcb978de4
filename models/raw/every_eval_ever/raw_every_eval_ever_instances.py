"""Every instance line (one sample of one evaluation result) of the
instance file of every loaded Every Eval Ever aggregate version:
append-only raw history, a line that cannot be used kept with its reason.

The loader's one entry point (agent_eval.ingest.load_records) does the
work; the kind's reader (agent_eval.agents.every_eval_ever.reader) streams
the instance file one line at a time.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "every_eval_ever_aggregate", dbt.ref("raw_drop_files"))
