"""The recruit agent's report: one markdown file per set (SPEC 4.5),
rendered by agent_eval.report from TEMPLATE with context()."""

from __future__ import annotations

from typing import Any

import duckdb

from agent_eval.db import rows

TEMPLATE = "report.md.j2"


def context(con: duckdb.DuckDBPyConnection, set_id: str, top_n: int = 10) -> dict[str, Any]:
    """Mart rows of one recruit set (SPEC 4.5), ordered for the report."""
    one = [set_id]
    distribution: dict[str, list[dict[str, Any]]] = {}
    for row in rows(
        con,
        "select * from marts.recruit_latency_distribution where set_id = ? order by latency_class, latency_score desc",
        one,
    ):
        distribution.setdefault(row["latency_class"], []).append(row)
    return {
        "s": rows(con, "select * from marts.recruit_set_scores where set_id = ?", one)[0],
        "rounds": rows(con, "select * from marts.recruit_round_scores where set_id = ? order by round_order", one),
        "weights": rows(
            con,
            "select metric, metric_name, weight from rubric.recruit_weights order by weight desc, metric",
        ),
        "failing_checks": rows(
            con,
            "select c.check_label, c.reason, l.label_ko as reason_label, c.n_failed, c.actual_value "
            "from marts.rpt_recruit_failing_checks as c left join rubric.reason_labels as l on l.reason = c.reason "
            "where c.set_id = ? and c.check_rank <= ? order by c.check_rank",
            [set_id, top_n],
        ),
        "low_consistency": rows(
            con,
            """
            select * from marts.recruit_query_consistency
            where set_id = ?
            order by consistency_score, n_runs desc, query_id
            limit ?
            """,
            [set_id, top_n],
        ),
        "latency_classes": rows(
            con, "select latency_class, metric_name from rubric.recruit_latency_classes order by latency_class desc"
        ),
        "distribution": distribution,
        "rejected_rows": rows(
            con,
            "select r.line_number, r.reason, l.label_ko as reason_label, r.reason_detail from ops.rejected_rows as r "
            "left join rubric.reason_labels as l on l.reason = r.reason "
            "where r.source_file = ? and r.is_current order by r.line_number",
            one,
        ),
    }
