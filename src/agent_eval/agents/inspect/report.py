"""An Inspect AI log's report: one markdown file per log,
reports/inspect/<drop_date>/<file stem>.md, rendered by agent_eval.report
from TEMPLATE with context() (the rows of its marts; computes nothing)."""

from __future__ import annotations

from typing import Any

import duckdb

from agent_eval.db import rows

TEMPLATE = "report.md.j2"
FLIPS_SHOWN = 20


def context(con: duckdb.DuckDBPyConnection, set_id: str) -> dict[str, Any]:
    one = [set_id]
    return {
        "r": rows(con, "select * from marts.inspect_runs where set_id = ?", one)[0],
        "scores": rows(
            con,
            "select * from marts.inspect_set_scores where set_id = ? order by scorer, metric",
            one,
        ),
        "diffs": rows(
            con,
            "select metric, metric_label, baseline_value, metric_value, delta, verdict "
            "from marts.history_metric_diffs where set_id = ? order by metric_order, metric",
            one,
        ),
        "flips": rows(
            con,
            "select query_id, round, transition, baseline_message, message from marts.history_flips "
            "where set_id = ? and transition in ('pass_to_fail', 'fail_to_pass') "
            "order by transition desc, query_id, round limit ?",
            [set_id, FLIPS_SHOWN],
        ),
        "rejected_rows": rows(
            con,
            "select line_number, reason_detail from ops.rejected_rows "
            "where source_file = ? and is_current order by line_number",
            one,
        ),
    }
