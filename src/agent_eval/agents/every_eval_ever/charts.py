"""The charts of an Every Eval Ever set's report: those of every imported
tool's set (agent_eval.eval_report; agent_eval.charts draws them)."""

from agent_eval.eval_report import CHARTS

__all__ = ["CHARTS"]
