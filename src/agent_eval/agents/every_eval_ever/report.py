"""An Every Eval Ever aggregate's report,
reports/every_eval_ever/<drop_date>/<file stem>.md: the report every
imported tool's set has (agent_eval.eval_report, over marts.eval_*)."""

from agent_eval.eval_report import TEMPLATE, context

__all__ = ["TEMPLATE", "context"]
