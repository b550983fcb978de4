"""Every result (one prompt x provider x test x repeat) of every loaded
promptfoo output version: append-only raw history, a result that cannot be
used kept with its reason.

The loader's one entry point (agent_eval.ingest.load_records) does the
work; the kind's reader (agent_eval.agents.promptfoo.reader) streams the
output's results one at a time.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(
        dbt, session, "promptfoo_output", dbt.ref("raw_drop_files"), dbt.config.get("drops_dir")
    )
