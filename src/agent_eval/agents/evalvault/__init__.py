"""EvalVault (a RAG evaluation tool) run exports: its run workbook
(``evalvault_run_<run_id>.xlsx``) and its JSON export (``evalvault export
<run_id> -o file.json``). One export is one evaluation set, its series the
(tool, dataset, model); each metric EvalVault scored is a scorer, judged by
the run's threshold for it. Its drop kind and trend panels; its report,
charts, samples and viewer pages are the submodules (agent_eval.registry:
the registry's contract). Light at import: the loader reads KINDS inside
dbt's Python models, and the reader (which needs openpyxl) is imported
when an export is read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_eval.drop_kinds import DATE_DIR, DropKind


def read_run(path: Path) -> tuple[dict[str, Any], Any]:
    from agent_eval.agents.evalvault.reader import read_run as read

    return read(path)


KINDS = (
    DropKind(
        name="evalvault_run",
        # as EvalVault writes them, any name, in any folder below evalvault/
        pattern=re.compile(DATE_DIR + r"/evalvault/(?:[^/]+/)*[^/]+\.(?:xlsx|json)"),
        fmt="log",
        reader=read_run,
    ),
)

# the panels of its trend chart (history_metrics names; the metrics
# EvalVault scored are the data's: the trend chart draws the ones a set has)
TREND_METRICS = ("pass_rate", "tokens_per_sample")
