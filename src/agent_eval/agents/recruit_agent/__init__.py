"""The recruit agent (H.채용, SPEC 4): its drop kinds and trend panels; its
report, charts and samples are the submodules report, charts and samples
(agent_eval.registry: the registry's contract). Light at import: the loader
reads KINDS inside dbt's Python models."""

from __future__ import annotations

import re

from agent_eval.drop_kinds import DATE_DIR, DropKind

KINDS = (
    DropKind(
        name="recruit_agent",
        pattern=re.compile(DATE_DIR + r"/recruit_agent_[^/]*\.jsonl"),
        fmt="jsonl",
        required=("itemId", "queryId", "raw"),
    ),
)

# the panels of its trend chart (history_metrics names)
TREND_METRICS = ("accuracy_score", "consistency_score", "stability_score", "weighted_total")
