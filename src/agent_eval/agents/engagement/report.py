"""The engagement agent's report: one markdown file per run,
reports/engagement/<drop_date>/<run_id>.md, rendered by agent_eval.report
from TEMPLATE with context()."""

from __future__ import annotations

from typing import Any

import duckdb

from agent_eval.db import rows

TEMPLATE = "report.md.j2"


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
        "personas": rows(
            con,
            "select * from marts.engagement_persona_scores where set_id = ? order by persona",
            one,
        ),
        "persona_metrics": rows(
            con,
            "select * from marts.engagement_persona_metrics where set_id = ? order by persona, metric_order",
            one,
        ),
        "rejected_rows": rows(
            con,
            "select source_file, line_number, reason_detail from ops.rejected_rows "
            "where kind = 'engagement_actions' and is_current "
            "and starts_with(source_file, ? || '/') order by source_file, line_number",
            one,
        ),
    }
