"""Sample drops of OpenAI Evals: two runs (evals' Match and FuzzyMatch on
six questions) from each of two nights, written by oaieval itself with an
offline lookup completion function (scripts/fixtures/openai_evals_records.py;
the same files are test fixtures), so the demo shows flips between the
nights and the final reports beside the warehouse's figures."""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).parent / "sample_outputs"
DAYS = ("2026-10-01", "2026-10-02")
NAMES = ("greetings.lookup.jsonl", "greetings-fuzzy.lookup.jsonl")


def write_samples(drops_dir: Path) -> list[Path]:
    written = []
    for day in DAYS:
        for name in NAMES:
            target = drops_dir / day / "openai_evals" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(HERE / f"{day}.{name}", target)
            written.append(target)
    return written
