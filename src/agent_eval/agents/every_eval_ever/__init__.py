"""Every Eval Ever (EvalEval Coalition) files: an aggregate JSON
(``eval.schema.json``) and, when it names one, its instance-level JSONL
companion (``instance_level_eval.schema.json``), schema 0.3.0. One
aggregate (with its instances) is one evaluation set; its series is
(every_eval_ever, benchmark, model). Its drop kind and trend panels; its
report, charts, samples and viewer pages are the submodules
(agent_eval.registry: the registry's contract). Light at import: the loader
reads KINDS inside dbt's Python models, and the reader (which needs
jsonschema) is imported when a file is read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_eval.drop_kinds import DATE_DIR, DropKind

# the instance file of <uuid>.json, beside it, as EvalEval's converters
# and datastore name it
INSTANCE_SUFFIX = "_samples.jsonl"
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


def read_aggregate(path: Path) -> tuple[dict[str, Any], Any]:
    from agent_eval.agents.every_eval_ever.reader import read_aggregate as read

    return read(path)


def instance_file(path: Path) -> tuple[Path, ...]:
    """The instance file read with an aggregate (``<uuid>_samples.jsonl``
    beside ``<uuid>.json``): part of the aggregate's version."""
    return (path.with_name(path.stem + INSTANCE_SUFFIX),)


KINDS = (
    DropKind(
        name="every_eval_ever_aggregate",
        # as EvalEval's converters and datastore name and lay them out
        # (data/<benchmark>/<developer>/<model>/<uuid>.json), in any folder
        # below every_eval_ever/; by the UUID name only, since a benchmark
        # folder may itself end in .json (a set named by its file)
        pattern=re.compile(DATE_DIR + r"/every_eval_ever/(?:[^/]+/)*" + UUID + r"\.json"),
        fmt="log",
        reader=read_aggregate,
        companions=instance_file,
    ),
)

# the panels of its trend chart (history_metrics names; an aggregate's
# results are its data: the trend chart draws the ones a set has)
TREND_METRICS = ("tokens_per_sample",)
