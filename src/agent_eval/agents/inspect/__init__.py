"""Inspect AI (UK AISI) logs: one log is one evaluation set, its series the
(tool, task, model). Its drop kind and trend panels; its report, charts,
samples and viewer pages are the submodules (agent_eval.registry: the
registry's contract). Light at import: the loader reads KINDS inside dbt's
Python models, and the reader (which needs zstandard) is imported when a
log is read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_eval.drop_kinds import DATE_DIR, DropKind


def read_log(path: Path) -> tuple[dict[str, Any], Any]:
    from agent_eval.agents.inspect.reader import read_log as read

    return read(path)


KINDS = (
    DropKind(
        name="inspect_log",
        # as `inspect eval` writes them, any name, in any folder below inspect/
        pattern=re.compile(DATE_DIR + r"/inspect/(?:[^/]+/)*[^/]+\.(?:eval|json)"),
        fmt="log",
        reader=read_log,
    ),
)

# the panels of its trend chart (history_metrics names; a log's scorers are
# its data: the trend chart draws the ones a set has)
TREND_METRICS = ("tokens_per_sample",)
