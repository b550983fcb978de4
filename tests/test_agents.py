"""The agent registry (agent_eval.agents) and every module that keeps
something per agent agree: each registered agent has its renderer, charts,
trend panels, sample writer, drop kinds and set-level mart, and no module
knows an agent, or a drop kind, the registry does not."""

from __future__ import annotations

from pathlib import Path

from agent_eval import agents, charts, ingest, report, samples
from conftest import PROJECT_DIR

NAMES = [agent.name for agent in agents.AGENTS]


def test_every_per_agent_table_covers_exactly_the_registered_agents():
    assert list(report.RENDERERS) == NAMES  # the render order is the registry's
    assert set(charts.CHARTS) == set(NAMES)
    assert set(charts.TREND_METRICS) == set(NAMES)
    assert list(samples.SAMPLE_WRITERS) == NAMES
    assert all(agent.label for agent in agents.AGENTS)


def test_each_drop_kind_belongs_to_exactly_one_agent():
    owned = [kind for agent in agents.AGENTS for kind in agent.kinds]
    assert sorted(owned) == sorted(kind.name for kind in ingest.KINDS)
    assert len(owned) == len(set(owned))


def test_each_set_table_is_a_mart_of_the_agents_own_folder():
    for agent in agents.AGENTS:
        schema, table = agent.set_table.split(".")
        assert schema == "marts", agent
        assert (PROJECT_DIR / "models" / "marts" / agent.name / f"{table}.sql").is_file(), agent


def test_report_paths_of_a_file_set_and_of_a_run_folder():
    reports = Path("/r")
    assert agents.BY_NAME["resume_agent"].report_path(reports, "2026-11-01/resume_agent_basic.csv") == Path(
        "/r/resume_agent/2026-11-01/resume_agent_basic.md"
    )
    assert agents.BY_NAME["engagement"].report_path(reports, "2026-11-01/engagement/run-7") == Path(
        "/r/engagement/2026-11-01/run-7.md"
    )
    assert agents.label("no_such_agent") == "no_such_agent"
