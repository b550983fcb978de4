"""runner.run_dbt: a preloaded dbt (the suite's way, agent_eval.dbt_preload)
behaves as the plain subprocess a user's command starts: same exit status,
same output, a failure named with its output's tail, and no DuckDB lock left
behind."""

from __future__ import annotations

import duckdb
import pytest

from agent_eval import runner
from conftest import Warehouse


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
