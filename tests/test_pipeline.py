"""agent_eval.pipeline: `agent-eval build`'s stages, in order, on one Build.

The builds themselves (output, exit codes) are guarded by the build tests
(test_cli, test_night_holds, test_gates, test_freshness, ...); here the
pipeline's own rules, without dbt: the order of the stages, that a stage
which stops the build ends it, and the exit code's precedence as the CLI's
docstring states it (1 over 4 over 3 over 0).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from agent_eval import cli, pipeline, runner
from agent_eval.project import Paths


def make_paths(tmp_path: Path) -> Paths:
    return Paths(tmp_path, tmp_path / "w.duckdb", tmp_path / "drops", tmp_path / "reports", dbt_work_dir=tmp_path)


class Silent:
    """A progress display that shows nothing."""

    def close(self) -> None:
        self.closed = True


def a_build(tmp_path: Path, **fields) -> pipeline.Build:
    return pipeline.Build(make_paths(tmp_path), pipeline.Options(), Silent(), started=datetime.now(), **fields)


def test_the_stages_read_straight_down():
    assert [name for name, _ in pipeline.STAGES] == ["dbt", "loaded", "publish", "reports", "gates", "verdict"]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # a failure is exit 1 whatever else happened
        ({"failure": "dbt failed", "gate_failed": True}, 1),
        # a failed gate wins over rejected input
        ({"gate_failed": True, "loaded": runner.BuildSummary(rejected_files=[("a.csv", "bad")])}, 4),
        ({"loaded": runner.BuildSummary(n_rejected_rows=2)}, 3),
        ({"loaded": runner.BuildSummary()}, 0),
    ],
)
def test_the_verdict_follows_the_documented_precedence(tmp_path, fields, expected):
    build = a_build(tmp_path, **fields)
    pipeline.verdict(build)
    assert build.exit_code == expected
    assert {cli.EXIT_OK, cli.EXIT_FAILED, cli.EXIT_REJECTED, cli.EXIT_GATE_FAILED} == {0, 1, 3, 4}


def test_a_stage_that_stops_the_build_ends_it(tmp_path, monkeypatch, capsys):
    ran: list[str] = []

    def stage(name: str, stop: bool = False):
        def run(build: pipeline.Build) -> None:
            ran.append(name)
            if stop:
                build.stopped = "no warehouse was written"

        return name, run

    monkeypatch.setattr(pipeline, "STAGES", (stage("dbt"), stage("loaded", stop=True), stage("publish")))
    build = pipeline.run(make_paths(tmp_path), pipeline.Options())
    assert ran == ["dbt", "loaded"]
    assert build.exit_code == 1 and build.stopped == "no warehouse was written"


def test_dbt_is_asked_for_what_the_options_say(tmp_path):
    paths = make_paths(tmp_path)
    nightly = pipeline.dbt_arguments(paths, pipeline.Options())
    assert nightly[:5] == ["build", "--project-dir", str(tmp_path), "--selector", "nightly"]
    assert "--full-refresh" not in nightly and "--exclude-resource-type" not in nightly
    everything = pipeline.dbt_arguments(paths, pipeline.Options(full_refresh=True, unit_tests=True, data_tests=False))
    assert everything[4] == "everything"
    assert everything[-3:] == ["--full-refresh", "--exclude-resource-type", "test"]
