"""Inputs and situations that must not stop a night (issue 16): each ends in
a clear rejection or a one-line refusal, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import duckdb
import pytest

from agent_eval import cli, runner

HOLD_OPEN = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("holding", flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("command", ["build", "demo"])
def test_a_second_build_on_a_held_warehouse_is_refused_in_one_line_before_dbt_starts(
        tmp_path, monkeypatch, capsys, command):
    db, drops = tmp_path / "warehouse.duckdb", tmp_path / "drops"
    drops.mkdir()
    duckdb.connect(str(db)).close()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_OPEN, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"

        def no_dbt(*args, **kwargs):
            raise AssertionError("dbt was started on a held warehouse")

        monkeypatch.setattr(runner, "run_dbt", no_dbt)
        code = cli.main([command, "--db", str(db), "--drops", str(drops), "--reports", str(tmp_path / "r"),
                         "--published", str(tmp_path / "p")])
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err.strip()
    assert code == cli.EXIT_USAGE
    assert err.count("\n") == 0, err
    assert err.startswith(f"agent-eval: {db} is in use by another process (PID {holder.pid}: ")
    assert "HOLD_OPEN" not in err and "import sys, time, duckdb" in err  # the holder's command line
    assert err.endswith("; try again when it ends")
    assert db.exists()  # the demo did not delete the held file


def test_a_free_or_missing_warehouse_has_no_lock_holder(tmp_path):
    db = tmp_path / "warehouse.duckdb"
    assert runner.lock_holder(db) is None
    duckdb.connect(str(db)).close()
    assert runner.lock_holder(db) is None
