"""The engagement agent's report: one markdown file per run,
reports/engagement/<drop_date>/<run_id>.md, rendered by agent_eval.report
from TEMPLATE with context()."""

from __future__ import annotations

from typing import Any

import duckdb

from agent_eval.db import rows

TEMPLATE = "report.md.j2"

# A run may name thousands of personas: the report and its chart show the
# PERSONA_LIMIT personas with the lowest overall similarity (in persona
# order) and say how many there are; the marts hold them all.
PERSONA_LIMIT = 50

SHOWN_PERSONAS = (
    "select persona from marts.engagement_persona_scores where set_id = ? "
    "order by overall_similarity asc nulls first, persona limit " + str(PERSONA_LIMIT)
)


def context(con: duckdb.DuckDBPyConnection, set_id: str) -> dict[str, Any]:
    """The mart rows of one run's report."""
    one = [set_id]
    return {
        "r": rows(con, "select * from marts.engagement_run_scores where set_id = ?", one)[0],
        "metrics": rows(
            con,
            "select * from marts.engagement_run_metrics where set_id = ? order by metric_order",
            one,
        ),
        "n_personas": rows(con, "select count(*) as n from marts.engagement_persona_scores where set_id = ?", one)[0][
            "n"
        ],
        "persona_limit": PERSONA_LIMIT,
        "personas": rows(
            con,
            "select * from marts.engagement_persona_scores where set_id = ? "
            f"and persona in ({SHOWN_PERSONAS}) order by persona",
            one * 2,
        ),
        "persona_metrics": rows(
            con,
            "select * from marts.engagement_persona_metrics where set_id = ? "
            f"and persona in ({SHOWN_PERSONAS}) order by persona, metric_order",
            one * 2,
        ),
        "rejected_rows": rows(
            con,
            "select source_file, line_number, reason_detail from ops.rejected_rows "
            "where kind = 'engagement_actions' and is_current "
            "and starts_with(source_file, ? || '/') order by source_file, line_number",
            one,
        ),
    }
