"""The page of an Every Eval Ever aggregate in the web viewer: the page
every imported tool's set has (agent_eval.viewer.eval_sets, over
marts.eval_*)."""

from agent_eval.viewer.eval_sets import TEMPLATE, set_page

__all__ = ["TEMPLATE", "set_page"]
