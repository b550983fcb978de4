"""The summary agent's report: one markdown file per dataset (SPEC 6),
rendered by agent_eval.report from TEMPLATE with context(), and the
workbook of the summary marts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from agent_eval.db import rows

TEMPLATE = "report.md.j2"


def context(con: duckdb.DuckDBPyConnection, set_id: str, worst_limit: int = 5) -> dict[str, Any]:
    one = [set_id]
    metrics = rows(con, "select * from marts.summary_set_metrics where set_id = ? order by metric_order", one)
    return {
        "s": rows(con, "select * from marts.summary_set_scores where set_id = ?", one)[0],
        "metrics": metrics,
        "warnings": [m for m in metrics if m["is_below_threshold"]],
        "worst": rows(
            con,
            "select * from marts.summary_case_scores where set_id = ? and n_failed_metrics > 0 "
            "order by n_failed_metrics desc, mean_final_score, case_index limit ?",
            [set_id, worst_limit],
        ),
        "queue": rows(
            con,
            "select q.metric, q.review_reason, l.label_ko as review_reason_label, q.n_pending, q.n_judged, "
            "q.n_failed from marts.rpt_summary_review_queue_counts as q "
            "left join rubric.reason_labels as l on l.reason = q.review_reason "
            "where q.set_id = ? order by q.metric, q.review_reason",
            one,
        ),
        "rejected_rows": rows(
            con,
            "select line_number, reason, reason_detail from ops.rejected_rows "
            "where source_file = ? and is_current order by line_number",
            one,
        ),
    }


# the Excel export of the summary marts, beside the reports
WORKBOOK = "summary_scores.xlsx"


def after_reports(db_path: Path, reports_dir: Path, all_sets: list[str], set_ids: list[str] | None) -> list[Path]:
    """The workbook of every dataset (reports_dir/summary/summary_scores.xlsx),
    when the build renders every report."""
    from agent_eval.agents.summary.export import export_summary_xlsx

    if not all_sets or set_ids:
        return []
    return [export_summary_xlsx(db_path, reports_dir / "summary" / WORKBOOK)]
