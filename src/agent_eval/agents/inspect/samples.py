"""Sample drops of Inspect AI: two logs of one task (arith, 8 samples x 2
epochs, three scorers, a dict-valued one among them) from two nights,
written by inspect_ai itself with its offline mockllm provider
(scripts/fixtures/inspect_logs.py; the same logs are test fixtures), so the
demo shows flips between the nights. Inspect names a log by its time, task
and id; the samples keep those names."""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).parent / "sample_logs"
# drop date -> the name inspect gave the log
LOGS = {
    "2026-11-01": "2026-11-26T09-29-25-00-00_arith_aYyb5ZGxCzi9eciaYcM4UA.eval",
    "2026-11-02": "2026-11-26T09-29-25-00-00_arith_T7UaWM7CrKm2J7i9CfG7kA.eval",
}


def write_samples(drops_dir: Path) -> list[Path]:
    written = []
    for day, name in LOGS.items():
        target = drops_dir / day / "inspect" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HERE / f"{day}.eval", target)
        written.append(target)
    return written
