"""The charts of the engagement report (agent_eval.charts draws them; each
reads one public mart)."""

from __future__ import annotations

from typing import Any

import duckdb
from matplotlib.figure import Figure

from agent_eval.agents.engagement import TREND_METRICS
from agent_eval.agents.engagement.report import SHOWN_PERSONAS
from agent_eval.charts import (
    ChartSpec,
    as_float,
    bar_chart,
    drawable,
    panels,
    rows,
    series_trend,
)

ENGAGEMENT_KINDS = {"count": "건수 지표", "rate": "비율 지표"}


EXPECTED_ACTUAL = {"expected_value": "기대값", "actual_value": "실제값"}


def engagement_expected_actual(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Expected vs actual per metric of the run, counts and rates apart."""
    metrics = rows(
        con,
        "select metric_order, metric, metric_kind, expected_value, actual_value "
        "from marts.engagement_run_metrics where set_id = ? order by metric_order",
        [set_id],
    )
    kinds = {kind: [m for m in metrics if m["metric_kind"] == kind] for kind in ENGAGEMENT_KINDS}
    drawn = {kind: ms for kind, ms in kinds.items() if ms}
    if not drawn:
        return False
    for ax, (kind, ms) in zip(panels(fig, len(drawn), ncols=min(2, len(drawn))), drawn.items()):
        series = {label: [as_float(m[column]) for m in ms] for column, label in EXPECTED_ACTUAL.items()}
        bar_chart(ax, [m["metric"] for m in ms], series, counts=kind == "count")
        ax.set_title(ENGAGEMENT_KINDS[kind], loc="left")
    return True


def engagement_persona_expected_actual(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Expected vs actual per persona, one panel per metric (the personas
    the report shows: report.PERSONA_LIMIT at most)."""
    result = rows(
        con,
        "select metric_order, metric, metric_kind, persona, expected_value, actual_value "
        f"from marts.engagement_persona_metrics where set_id = ? and persona in ({SHOWN_PERSONAS}) "
        "order by metric_order, persona",
        [set_id, set_id],
    )
    by_metric: dict[str, list[dict[str, Any]]] = {}
    for r in result:
        by_metric.setdefault(r["metric"], []).append(r)
    if not by_metric:
        return False
    for ax, (metric, ms) in zip(panels(fig, len(by_metric)), by_metric.items()):
        series = {label: [as_float(m[column]) for m in ms] for column, label in EXPECTED_ACTUAL.items()}
        bar_chart(ax, [drawable(m["persona"]) for m in ms], series, counts=ms[0]["metric_kind"] == "count")
        ax.set_title(metric, loc="left")
    return True


# the charts each report links, in order
CHARTS = [
    ChartSpec("expected_actual", "지표별 기대값 대비 실제값", engagement_expected_actual),
    ChartSpec("persona_expected_actual", "페르소나별 기대값 대비 실제값", engagement_persona_expected_actual),
    ChartSpec("trend", "시리즈 추이 (기준선 표시)", series_trend(TREND_METRICS)),
]
