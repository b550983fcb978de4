"""promptfoo outputs (``promptfoo eval -o file.json`` / ``file.jsonl``):
one output holds prompts x providers x tests (x repeats); one evaluation
set is one (output, provider, prompt) column, its series the (tool,
description, provider, prompt). Its drop kind and trend panels; its
report, charts, samples and viewer pages are the submodules
(agent_eval.registry: the registry's contract). Light at import: the loader
reads KINDS inside dbt's Python models."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_eval.drop_kinds import DATE_DIR, DropKind


def read_output(path: Path) -> tuple[dict[str, Any], Any]:
    from agent_eval.agents.promptfoo.reader import read_output as read

    return read(path, KINDS[0])


KINDS = (
    DropKind(
        name="promptfoo_output",
        # as `promptfoo eval -o` writes them, any name, in any folder below promptfoo/
        pattern=re.compile(DATE_DIR + r"/promptfoo/(?:[^/]+/)*[^/]+\.(?:json|jsonl)"),
        fmt="log",
        reader=read_output,
    ),
)

# the panels of its trend chart (history_metrics names; the assertions'
# scorers are the data's: the trend chart draws the ones a set has)
TREND_METRICS = ("pass_rate", "tokens_per_sample")
