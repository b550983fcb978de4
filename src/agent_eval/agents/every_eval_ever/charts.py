"""The charts of an Every Eval Ever set's report: those of every imported
tool's set (agent_eval.eval_report; agent_eval.charts draws them)."""

from agent_eval.agents.every_eval_ever import TREND_METRICS
from agent_eval.eval_report import charts

CHARTS = charts(TREND_METRICS)
