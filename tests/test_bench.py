"""The benchmark command, at a tiny size, so it cannot rot.

Asserts only that every figure is produced (and that the marts agreed with
the floor query, which the script checks itself) - never a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import PROJECT_DIR

FIGURES = ("floor", "full", "incremental", "small", "empty", "report")


@pytest.mark.dbt
def test_bench_smoke_run_produces_every_figure(tmp_path):
    out = tmp_path / "BENCHMARKS.md"
    completed = subprocess.run(
        [sys.executable, str(PROJECT_DIR / "scripts" / "bench.py"),
         "--rows", "60", "--incremental-rows", "9", "--runs", "1",
         "--work", str(tmp_path / "work"), "--out", str(out)],
        capture_output=True, text=True, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["parameters"]["rows"] == 60 and data["parameters"]["incremental_rows"] == 9
    for name in FIGURES:
        figure = data["figures"][name]
        assert figure["runs"] == 1
        assert figure["wall_s"] > 0 and figure["cpu_s"] > 0 and figure["peak_rss_mib"] > 0, name
    assert set(data["ratios"]) >= {"full_over_floor", "incremental_over_empty", "full_peak_rss_mib"}
    # the floor's per-round figures: 3 rounds of 20 rows
    assert [row[:2] for row in data["floor_result"]] == [["1/1", 20], ["2/1", 20], ["3/1", 20]]
    text = out.read_text()
    for heading in ("| measurement |", "## Targets", "## Where the time goes", "make bench"):
        assert heading in text
