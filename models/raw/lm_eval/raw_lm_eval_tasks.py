"""Every task (one record each: its figures as lm-eval reported them) of
every loaded lm-evaluation-harness results file version: append-only raw
history, a task that cannot be used kept with its reason.

The loader's one entry point (agent_eval.ingest.load_records) does the
work; the kind's reader is agent_eval.agents.lm_eval.reader.read_results.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "lm_eval_results", dbt.ref("raw_drop_files"))
