"""The charts of an Inspect AI log's report (agent_eval.charts draws them;
each reads one public mart)."""

from __future__ import annotations

from agent_eval.charts import ChartSpec, series_trend

# the charts each report links, in order
CHARTS = [
    ChartSpec("trend", "시리즈 추이 (기준선 표시)", series_trend),
]
