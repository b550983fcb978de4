"""The insurance summary agent (보험 요약, SPEC 6): its drop kinds and trend panels; its
report, charts and samples are the submodules report, charts and samples
(agent_eval.registry: the registry's contract). Light at import: the loader
reads KINDS inside dbt's Python models."""

from __future__ import annotations

import re
from typing import Any

from agent_eval.drop_kinds import DATE_DIR, DropKind


def validate_evalvault_dataset(document: Any) -> str | None:
    """Dataset-level checks of an EvalVault JSON dataset (as EvalVault's own
    loader does): optional ``thresholds`` is an object of numbers in [0, 1].
    Returns why the dataset cannot be used, or None."""
    if not isinstance(document, dict):
        return None  # the records_key check names the problem
    thresholds = document.get("thresholds")
    if thresholds is None:
        return None
    if not isinstance(thresholds, dict):
        return "not a valid dataset: 'thresholds' is not an object"
    for metric, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"not a valid dataset: threshold '{metric}' is not a number"
        if not 0.0 <= float(value) <= 1.0:
            return f"not a valid dataset: threshold '{metric}' = {value} is not in [0, 1]"
    return None


KINDS = (
    DropKind(
        name="summary",
        pattern=re.compile(DATE_DIR + r"/summary_[^/]*\.json"),
        fmt="json",
        required=("id", "answer", "contexts"),
        records_key="test_cases",
        validate_document=validate_evalvault_dataset,
    ),
)

# the panels of its trend chart (history_metrics names)
TREND_METRICS = ("summary_accuracy", "summary_risk_coverage", "summary_non_definitive", "summary_needs_followup")
