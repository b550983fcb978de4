"""An lm-eval set's report (a results file's task),
reports/lm_eval/<drop_date>/<results file stem>-<task>.md: the report every
imported tool's set has (agent_eval.eval_report, over marts.eval_*)."""

from agent_eval.eval_report import TEMPLATE, context

__all__ = ["TEMPLATE", "context"]
