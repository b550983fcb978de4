"""Manifest of every drop file observed: append-only raw history.

Thin shim: the work is in agent_eval.ingest, shared by every input kind.
Every new file version is parsed once, here; its rows land in the
warehouse's landing folder for the loader models (agent_eval.ingest.landing).
"""

import os
from datetime import date

from agent_eval.ingest import Observation, landing_root, manifest_rows, manifest_table


def model(dbt, session):
    drops_dir = dbt.config.get("drops_dir")
    # the build's invocation id, appended by the raw_history materialization
    load_id = globals().get("AGENT_EVAL_INVOCATION_ID", "")
    history = []
    if dbt.is_incremental:
        history = [
            Observation(*row)
            for row in session.sql(
                "select source_file, sha256, status, observation_seq,"
                f" size_bytes, modified_at from {dbt.this}"
            ).fetchall()
        ]
    # the build's date, as the freshness gates take it (var freshness_as_of,
    # else $AGENT_EVAL_AS_OF, else today): a drop folder after it is not read
    as_of = dbt.config.get("as_of") or os.environ.get("AGENT_EVAL_AS_OF", "")
    return manifest_table(
        manifest_rows(
            drops_dir,
            history,
            load_id=load_id,
            landing=landing_root(session),
            as_of=date.fromisoformat(as_of.strip()) if as_of.strip() else None,
        )
    )
