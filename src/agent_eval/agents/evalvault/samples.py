"""Sample drops of EvalVault: the run workbooks of one insurance-summary
dataset from two nights, written by EvalVault itself (its rule-based
summary metrics, its exporter: scripts/fixtures/evalvault_runs.py; the
same workbooks are test fixtures), so the demo shows test cases that flip
between the nights and a score exactly at its threshold."""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).parent / "sample_runs"
NAME = "insurance_summary.xlsx"
DAYS = ("2026-11-01", "2026-11-02")


def write_samples(drops_dir: Path) -> list[Path]:
    written = []
    for day in DAYS:
        target = drops_dir / day / "evalvault" / NAME
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HERE / f"{day}.xlsx", target)
        written.append(target)
    return written
