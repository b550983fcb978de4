"""Sample drops of Every Eval Ever: files written by EvalEval's own
converters (scripts/fixtures/every_eval_ever_files.py; the same files are
test fixtures) from two nights, in the datastore's layout
(data/<benchmark>/<developer>/<model>/<uuid>.json with its
_samples.jsonl): on the first, an Inspect AI run of ARC-Easy
(qwen2.5-0.5b) and an lm-evaluation-harness run of MATH; on the second, the
same ARC-Easy task for another model, a PubMedQA run and an LLM-scored
SimpleQA aggregate without instances."""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).parent / "sample_files"
DAYS = ("2026-11-01", "2026-11-02")


def write_samples(drops_dir: Path) -> list[Path]:
    written = []
    for day in DAYS:
        source = HERE / day
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            target = drops_dir / day / "every_eval_ever" / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            written.append(target)
    return written
