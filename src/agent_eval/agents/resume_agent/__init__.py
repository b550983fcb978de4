"""The resume agent (지원자 관리, SPEC 3): its drop kind and trend panels;
its report, charts and samples are the submodules report, charts and
samples (agent_eval.registry: the registry's contract).
Light at import: the loader reads KINDS inside dbt's Python models."""

from __future__ import annotations

import re

from agent_eval.drop_kinds import DATE_DIR, DropKind

# the header of a resume_agent_*.csv export (SPEC 3.1)
COLUMNS: tuple[str, ...] = (
    "Run ID",
    "Item ID",
    "Query ID",
    "Track",
    "질의",
    "기대결과",
    "카테고리",
    "방/반복",
    "응답",
    "오류",
    "LLM 상태",
    "LLM 점수",
    "LLM 코멘트",
    "Raw JSON",
)
KINDS = (
    DropKind(
        name="resume_agent",
        pattern=re.compile(DATE_DIR + r"/resume_agent_[^/]*\.csv"),
        fmt="csv",
        required=COLUMNS,
    ),
)

# the panels of its trend chart (history_metrics names)
TREND_METRICS = ("intent_score", "stability_score", "consistency_score", "latency_score")
