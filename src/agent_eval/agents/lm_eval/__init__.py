"""lm-evaluation-harness outputs (``lm-eval run ... --output_path DIR
--log_samples``): a results file per run, ``<model>/results_<datetime>.json``,
and a samples file per task beside it, ``samples_<task>_<datetime>.jsonl``.
One evaluation set is one (results file, task), its series the (tool, task,
model). Its two drop kinds and trend panels; its report, charts, samples and
viewer pages are the submodules (agent_eval.registry: the registry's
contract). Light at import: the loader reads KINDS inside dbt's Python
models."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_eval.drop_kinds import DATE_DIR, DropKind

# lm-eval's date_id (datetime.now().isoformat(), ':' as '-'), as reader.DATETIME
_DATETIME = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"


def read_results(path: Path) -> tuple[dict[str, Any], Any]:
    from agent_eval.agents.lm_eval.reader import read_results as read

    return read(path)


def read_samples(path: Path) -> tuple[dict[str, Any], Any]:
    from agent_eval.agents.lm_eval.reader import read_samples as read

    return read(path)


KINDS = (
    DropKind(
        name="lm_eval_results",
        # results_<datetime>.json (or <name>_<datetime>.json: --output_path
        # <name>.json), in any folder below lm_eval/ (lm-eval's is the model's)
        pattern=re.compile(DATE_DIR + rf"/lm_eval/(?:[^/]+/)*(?!samples_)[^/]+_{_DATETIME}\.json"),
        fmt="log",
        reader=read_results,
    ),
    DropKind(
        name="lm_eval_samples",
        pattern=re.compile(DATE_DIR + rf"/lm_eval/(?:[^/]+/)*samples_[^/]+_{_DATETIME}\.jsonl"),
        fmt="log",
        reader=read_samples,
        # a deterministic model answers a task the same night after night:
        # its samples file has the same bytes, yet each run needs its own
        dedupe_by_content=False,
    ),
)

# the panels of its trend chart: lm-eval's most common scorers (history
# metric = scorer, "<metric>,<filter>"); the chart draws those a set's
# series has (lm-eval records no tokens or cost)
TREND_METRICS = (
    "acc,none",
    "acc_norm,none",
    "exact_match,none",
    "exact_match,strict-match",
    "exact_match,flexible-extract",
)
