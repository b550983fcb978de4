"""The charts of an lm-eval set's report: those of every imported tool's set
(agent_eval.eval_report; agent_eval.charts draws them)."""

from agent_eval.agents.lm_eval import TREND_METRICS
from agent_eval.eval_report import charts

CHARTS = charts(TREND_METRICS)
