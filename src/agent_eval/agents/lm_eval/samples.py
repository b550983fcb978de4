"""Sample drops of lm-eval: the outputs of two nights of lm-eval runs on two
small Korean tasks (a multiple-choice quiz: acc, acc_norm; arithmetic
generation: exact_match and bleu under the strict-match and
flexible-extract filters), one model on both nights and a second model on
the second, written by lm-eval 0.4.13 itself
(scripts/fixtures/lm_eval_outputs.py; the same files are test fixtures),
so the demo shows flips between the nights and two series per task."""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).parent / "sample_outputs"


def write_samples(drops_dir: Path) -> list[Path]:
    written = []
    for source in sorted(p for p in HERE.rglob("*") if p.is_file()):
        target = drops_dir / source.relative_to(HERE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        written.append(target)
    return written
