"""OpenAI Evals record files (``oaieval ... --record_path run.jsonl``): one
record file is one run of one eval by its completion functions, one
evaluation set; its series is the (tool, eval, completion functions). Its
drop kind and trend panels; its report, charts, samples and viewer pages
are the submodules (agent_eval.registry: the registry's contract). Light at
import: the loader reads KINDS inside dbt's Python models."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_eval.drop_kinds import DATE_DIR, DropKind


def read_record(path: Path) -> tuple[dict[str, Any], Any]:
    from agent_eval.agents.openai_evals.reader import read_record as read

    return read(path)


KINDS = (
    DropKind(
        name="openai_evals_record",
        # as `oaieval --record_path` writes them, any name, in any folder below openai_evals/
        pattern=re.compile(DATE_DIR + r"/openai_evals/(?:[^/]+/)*[^/]+\.jsonl"),
        fmt="log",
        reader=read_record,
    ),
)

# the panels of its trend chart (history_metrics names; a run's scorers
# are its data: the trend chart draws the ones a set has)
TREND_METRICS = ("match", "tokens_per_sample")
