"""The charts of the summary report (agent_eval.charts draws them; each
reads one public mart)."""

from __future__ import annotations

import duckdb
from matplotlib.figure import Figure

from agent_eval.agents.summary import TREND_METRICS
from agent_eval.charts import (
    ChartSpec,
    histogram,
    panels,
    rows,
    score_histogram,
    score_ticks,
    series_trend,
)


def summary_metric_scores(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Per-metric case score distribution (0-1) with the threshold in force."""
    metrics = rows(
        con,
        "select metric_order, metric, metric_label, threshold, mean_score from marts.summary_set_metrics "
        "where set_id = ? and n_cases > 0 order by metric_order",
        [set_id],
    )
    if not metrics:
        return False
    bins, edges = score_histogram(
        con, "marts.rpt_summary_score_histogram", set_id, "unit", [m["metric"] for m in metrics]
    )
    axes = panels(fig, len(metrics), ncols=2)
    for ax, metric in zip(axes, metrics):
        histogram(ax, edges, {"": bins[metric["metric"]]})
        score_ticks(ax, edges[0], edges[-1], 0.2)
        ax.axvline(metric["threshold"], color="#d73027", linestyle="--", label=f"임계값 {metric['threshold']:.2f}")
        ax.axvline(metric["mean_score"], color="#313695", linestyle=":", label=f"평균 {metric['mean_score']:.2f}")
        ax.legend(fontsize="small", frameon=False, loc="upper left")
        ax.set_title(metric["metric_label"], loc="left")
        ax.set_xlabel("점수")
        ax.set_ylabel("케이스 수")
    return True


# the charts each report links, in order
CHARTS = [
    ChartSpec("metric_scores", "메트릭별 케이스 점수 분포 (임계값 표시)", summary_metric_scores),
    ChartSpec("trend", "시리즈 추이 (95% 구간, 7세트 이동평균, 기준선)", series_trend(TREND_METRICS)),
]
