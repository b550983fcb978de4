"""The report of a set of an imported evaluation tool (marts.eval_*: an
Inspect AI log, a promptfoo output's column, ...): one markdown file per
set, rendered by agent_eval.report from TEMPLATE (agent_eval/templates)
with context() (the rows of its marts; computes nothing). Each importing
agent's report module uses it as its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from agent_eval.charts import ChartSpec, series_trend
from agent_eval.db import rows

TEMPLATE = "eval_run.md.j2"


def charts(trend_metrics: Sequence[str]) -> list[ChartSpec]:
    """The charts each report links, in order (each agent's charts module's
    CHARTS, with its trend panels)."""
    return [ChartSpec("trend", "시리즈 추이 (기준선 표시)", series_trend(trend_metrics))]


FLIPS_SHOWN = 20


def context(con: duckdb.DuckDBPyConnection, set_id: str) -> dict[str, Any]:
    one = [set_id]
    return {
        "r": rows(con, "select * from marts.eval_runs where set_id = ?", one)[0],
        "scores": rows(
            con,
            "select * from marts.eval_set_scores where set_id = ? order by scorer, metric",
            one,
        ),
        "diffs": rows(
            con,
            "select d.metric, d.metric_label, d.baseline_value, d.metric_value, d.delta, d.verdict, "
            "v.label_ko as verdict_ko, v.label_en as verdict_en "
            "from marts.history_metric_diffs as d left join rubric.verdict_labels as v on v.verdict = d.verdict "
            "where d.set_id = ? order by d.metric_order, d.metric",
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
