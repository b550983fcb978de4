"""Every record (a test case, a score) of every loaded EvalVault run export
version: append-only raw history, a record that cannot be used kept with
its reason.

The loader's one entry point (agent_eval.ingest.load_records) does the
work; the kind's reader (agent_eval.agents.evalvault.reader) streams the
workbook's rows (openpyxl, read-only) or the JSON export's results one at
a time.
"""

from agent_eval.ingest import load_records


def model(dbt, session):
    return load_records(dbt, session, "evalvault_run", dbt.ref("raw_drop_files"))
