"""A night with no drop is noticed: seed expected_series names
the series expected and how often; history_gate_results gets a freshness
gate per series that fails the night (exit 4, JUnit, the morning page) when
the newest set is too old on the build's date, or never arrived.

Fixture `basic`: one resume set, 2026-11-01/resume_agent_basic.csv (a
Sunday), whose file has rejected rows (exit 3 on its own). Ages worked out by
hand on a calendar:
- as of 2026-11-02 (Mon): 1 day old (daily) -> pass with max 1;
- as of 2026-11-08 (Sun): 7 calendar days, 5 weekdays (Mon 2 - Fri 6):
  weekdays with max 5 -> pass, daily with max 5 -> stale.
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

import duckdb

from agent_eval import cli, gates
from conftest import built_on_project_copy

HEADER = "agent,series_id,cadence,max_age_days,note\n"
SERIES = "resume_agent_basic.csv"


def freshness(paths: Any) -> dict[str, tuple]:
    with duckdb.connect(str(paths.db_path), read_only=True) as con:
        return {
            r[0]: r[1:]
            for r in con.execute(
                "select series_id, status, metric_value, set_id, reason from marts.history_gate_results "
                "where metric = 'freshness' order by series_id"
            ).fetchall()
        }


def test_expected_series_that_are_late_or_never_arrived_fail_the_night(tmp_path_factory, monkeypatch):
    paths, first = built_on_project_copy(tmp_path_factory, ("basic",), singular_tests=True)
    assert first == cli.EXIT_REJECTED  # no expected series yet: the rejections alone
    seed = paths.project_dir / "seeds" / "history" / "expected_series.csv"

    seed.write_text(
        HEADER + f"resume_agent,{SERIES},daily,1,every night\n"
        "recruit_agent,recruit_agent_nightly.jsonl,daily,1,never delivered\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("AGENT_EVAL_AS_OF", "2026-11-02")
    assert cli.cmd_build(paths, reports=True) == cli.EXIT_GATE_FAILED  # stale wins over rejected rows
    found = freshness(paths)
    assert found[SERIES][:3] == ("pass", 1.0, f"2026-11-01/{SERIES}")
    status, age, set_id, reason = found["recruit_agent_nightly.jsonl"]
    assert (status, age, set_id) == ("stale", None, None)
    assert "no set has ever arrived" in reason
    junit = ElementTree.parse(paths.reports_dir / gates.JUNIT_FILE).getroot()
    failures = [f.get("message") for f in junit.iter("failure") if f.get("type") == "freshness"]
    assert failures == [reason]
    morning = (paths.reports_dir / "morning" / "2026-11-01.md").read_text(encoding="utf-8")
    assert "도착하지 않은 시리즈" in morning and "recruit_agent_nightly.jsonl" in morning

    seed.write_text(HEADER + f"resume_agent,{SERIES},weekdays,5,Monday to Friday\n", encoding="utf-8")
    monkeypatch.setenv("AGENT_EVAL_AS_OF", "2026-11-08")
    assert cli.cmd_build(paths) == cli.EXIT_REJECTED
    assert freshness(paths) == {SERIES: ("pass", 5.0, f"2026-11-01/{SERIES}", None)}

    seed.write_text(HEADER + f"resume_agent,{SERIES},daily,5,every night\n", encoding="utf-8")
    assert cli.cmd_build(paths) == cli.EXIT_GATE_FAILED
    status, age, _, reason = freshness(paths)[SERIES]
    assert (status, age) == ("stale", 7.0)
    assert f"the newest set 2026-11-01/{SERIES} is 7 day(s) old on 2026-11-08, allowed 5" in reason
