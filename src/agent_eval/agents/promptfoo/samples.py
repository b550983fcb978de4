"""Sample drops of promptfoo: two outputs of one eval (two providers x two
prompts x five tests, each repeated twice) from two nights, written by
promptfoo itself with its offline echo provider
(scripts/fixtures/promptfoo_outputs.py; the same outputs are test
fixtures), so the demo shows flips between the nights and a provider
error on the second."""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).parent / "sample_outputs"
NAME = "greetings.json"
DAYS = ("2026-11-01", "2026-11-02")


def write_samples(drops_dir: Path) -> list[Path]:
    written = []
    for day in DAYS:
        target = drops_dir / day / "promptfoo" / NAME
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HERE / f"{day}.json", target)
        written.append(target)
    return written
