"""The charts of the recruit_agent report (agent_eval.charts draws them; each
reads one public mart)."""

from __future__ import annotations

import duckdb
from matplotlib.figure import Figure

from agent_eval.agents.recruit_agent import TREND_METRICS
from agent_eval.charts import (
    ChartSpec,
    latency_panels,
    plot_latency_panels,
    plot_score_panels,
    score_histogram,
    series_trend,
)


def recruit_latency_hist(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Latency histogram per latency class (SINGLE, MULTI), with rubric bands."""
    return plot_latency_panels(fig, latency_panels(con, "marts.rpt_recruit_latency_histogram", set_id))


def recruit_accuracy_scores(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Item accuracy score distribution (0-5)."""
    bins, edges = score_histogram(con, "marts.rpt_recruit_score_histogram", set_id, "item", ["accuracy_score"])
    return plot_score_panels(fig, {"문항": {"정확성": bins["accuracy_score"]}}, edges)


RECRUIT_CONSISTENCY_SERIES = {"consistency_scored": "2회 이상 실행", "consistency_single": "1회만 실행 (0점)"}


def recruit_consistency_scores(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Per-query consistency score distribution (0-5), queries run once apart."""
    bins, edges = score_histogram(
        con, "marts.rpt_recruit_score_histogram", set_id, "item", list(RECRUIT_CONSISTENCY_SERIES)
    )
    series = {label: bins[name] for name, label in RECRUIT_CONSISTENCY_SERIES.items()}
    return plot_score_panels(fig, {"질의": series}, edges)


# the charts each report links, in order
CHARTS = [
    ChartSpec("accuracy_scores", "정확성 점수 분포", recruit_accuracy_scores),
    ChartSpec("consistency_scores", "질의별 일관성 점수 분포", recruit_consistency_scores),
    ChartSpec("latency_hist", "응답 속도 구분별 응답시간 분포 (루브릭 구간 표시)", recruit_latency_hist),
    ChartSpec("trend", "시리즈 추이 (95% 구간, 7세트 이동평균, 기준선)", series_trend(TREND_METRICS)),
]
