"""runner.run_dbt: a preloaded dbt (the suite's way, agent_eval.dbt_preload)
behaves as the plain subprocess a user's command starts: same exit status,
same output, a failure named with its output's tail, and no DuckDB lock left
behind."""

from __future__ import annotations

import json

import duckdb
import pytest
from test_left_out import agents_with_files

from agent_eval import cli, progress, registry, runner
from conftest import PROJECT_DIR, Warehouse


@pytest.fixture(params=["subprocess", "preloaded"])
def mode(request):
    runner.preload_dbt(False)
    if request.param == "preloaded":
        runner.preload_dbt(True)
    yield request.param
    runner.preload_dbt(True)  # the session's default (conftest.preloaded_dbt)


def test_output_and_exit_status_are_dbts(mode, tmp_path, capfd):
    wh = Warehouse(tmp_path)
    runner.run_dbt(wh.paths, ["ls", "--select", "raw_drop_files", "--output", "path"])
    out = capfd.readouterr().out
    assert "models/raw/common/raw_drop_files.py" in out.splitlines(), out
    with pytest.raises(runner.DbtFailed) as failure:
        runner.run_dbt(wh.paths, ["no-such-command"], quiet=True)
    assert "failed with exit code 2" in str(failure.value)
    assert "No such command 'no-such-command'" in str(failure.value)
    assert capfd.readouterr().out == ""  # quiet: nothing printed


def test_the_warehouse_is_free_once_dbt_returns(mode, tmp_path):
    wh = Warehouse(tmp_path)
    runner.run_dbt(wh.paths, ["run", "--select", "raw_drop_files"], quiet=True)
    with duckdb.connect(str(wh.paths.db_path)) as con:  # read-write: fails if dbt still held it
        assert con.execute("select count(*) from raw.raw_drop_files").fetchone() == (0,)
    # dbt writes manifest.json after parsing and again when the nodes have
    # run; agent_eval.dbt_main leaves the first out, the manifest is dbt's
    log = (wh.paths.log_dir / "dbt.log").read_text(encoding="utf-8")
    assert log.count("Wrote artifact WritableManifest") == 1
    assert "model.agent_eval.raw_drop_files" in json.loads((wh.paths.target_dir / "manifest.json").read_text())["nodes"]


def test_on_line_hands_over_dbts_output_line_by_line_and_prints_nothing(mode, tmp_path, capfd):
    wh = Warehouse(tmp_path)
    lines: list[str] = []
    runner.run_dbt(wh.paths, ["ls", "--select", "raw_drop_files", "--output", "path"], on_line=lines.append)
    assert "models/raw/common/raw_drop_files.py" in [line.rstrip("\n") for line in lines], lines
    assert capfd.readouterr().out == ""
    with pytest.raises(runner.DbtFailed) as failure:
        runner.run_dbt(wh.paths, ["no-such-command"], on_line=lines.append)
    assert "failed with exit code 2" in str(failure.value)
    assert any("No such command 'no-such-command'" in line for line in lines)


def test_a_build_shows_its_stages_and_writes_dbts_lines_to_the_log_it_names(built, capsys, monkeypatch):
    """The stages in order, each once; none of dbt's ~300 lines on screen
    (nor its red "Completed with 1 error" for the rejected input); dbt's
    lines in build.log, which the summary names. dbt runs the threads
    AGENT_EVAL_DBT_THREADS asks for (profiles.yml)."""
    wh, code = built("basic")
    monkeypatch.setenv("AGENT_EVAL_DBT_THREADS", "3")
    # the stages' totals come from this build's parse (agent_eval.dbt_main),
    # not from the manifest the last build left
    (wh.paths.target_dir / "manifest.json").unlink()
    capsys.readouterr()
    assert wh.build(reports=True) == code == cli.EXIT_REJECTED  # basic holds 2 rejected rows
    out = capsys.readouterr().out
    progress_part, summary = out.split("== summary ==")
    header, *stage_lines = [line for line in progress_part.splitlines() if line.strip()]
    assert header == f"agent-eval build: {wh.paths.drops_dir} -> {wh.paths.db_path}"
    assert [line.split()[0] for line in stage_lines] == list(progress.STAGES)
    # load: every loader (a Python model under models/raw) and every seed,
    # but those of the agents without a file, which the build leaves out
    # (agent_eval.left_out: the snapshot's build was of every agent)
    without_input = {agent.name for agent in registry.registered()} - agents_with_files(wh.drops)
    loaders = (PROJECT_DIR / "models" / "raw").rglob("*.py")
    seeds = (PROJECT_DIR / "seeds").rglob("*.csv")
    n_load = len([p for p in loaders if p.parent.name not in without_input]) + len(
        [p for p in seeds if p.relative_to(PROJECT_DIR / "seeds").parts[0] not in without_input]
    )
    assert stage_lines[0].split()[:2] == ["load", "done"] and f" {n_load}/{n_load} nodes" in stage_lines[0]
    assert set(
        summary.split("left out, never had input (their tables stay as they are): ")[1].split("\n")[0].split(", ")
    ) == (without_input)
    assert "assert_no_rejected_input" in stage_lines[-1]  # the failed test, named in the gates line
    for dbt_says in ("Running with dbt", " START ", "Completed with", "Done. PASS="):
        assert dbt_says not in out, dbt_says
    log = wh.paths.log_dir / progress.BUILD_LOG
    assert f"dbt's output: {log} " in summary
    text = log.read_text(encoding="utf-8")
    assert "Running with dbt=" in text and "rejected input: 2026-11-01/resume_agent_basic.csv: " in text
    assert "Completed with 1 error" in text and "\x1b[" not in text
    assert "Concurrency: 3 threads" in text
