"""The engagement agent (좋아요/댓글 유사도, SPEC 5): a set is one run folder: its drop kinds and trend panels; its
report, charts and samples are the submodules report, charts and samples
(agent_eval.registry: the registry's contract). Light at import: the loader
reads KINDS inside dbt's Python models."""

from __future__ import annotations

import re

from agent_eval.drop_kinds import DATE_DIR, DropKind
from agent_eval.schemas import expected_problem

# a set is one run folder <date>/engagement/<run id>, not one file
SET_IS_RUN_FOLDER = True

KINDS = (
    DropKind(
        name="engagement_actions",
        pattern=re.compile(DATE_DIR + r"/engagement/[^/]+/[^/]+/actions\.jsonl"),
        fmt="jsonl",
        dedupe_by_content=False,
    ),
    DropKind(
        name="engagement_expected",
        pattern=re.compile(DATE_DIR + r"/engagement/[^/]+/expected\.json"),
        fmt="json",
        validate_document=expected_problem,
        dedupe_by_content=False,
    ),
)

# the panels of its trend chart (history_metrics names)
TREND_METRICS = ("overall_similarity",)
