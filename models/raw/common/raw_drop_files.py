"""Manifest of every drop file observed: append-only raw history.

Thin shim: the work is in agent_eval.ingest, shared by every input kind.
Every new file version is parsed once, here; its rows land in the
warehouse's landing folder for the loader models (agent_eval.ingest.landing).
"""

from datetime import date

from agent_eval import settings
from agent_eval.ingest import Observation, landing_root, manifest_rows, manifest_table, resolve_drops_dir


def model(dbt, session):
    # $AGENT_EVAL_DROPS (agent_eval.settings), else data/drops: read when the
    # model runs, so another drops folder keeps dbt's saved parse state
    drops_dir = resolve_drops_dir()
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
    given = dbt.config.get("as_of")
    as_of = date.fromisoformat(given.strip()) if given and given.strip() else settings.value("AGENT_EVAL_AS_OF")
    return manifest_table(
        manifest_rows(
            drops_dir,
            history,
            load_id=load_id,
            landing=landing_root(session),
            as_of=as_of,
        )
    )
