"""The agent registry (seed seeds/registry/agents.csv, read by
agent_eval.agents; var('agents') on dbt's side) and each registered agent's
parts agree: every agent has its drop kinds, trend panels, report module and
template, charts and samples, its interface models, its set mart; no module
keeps a list of agents of its own. The toy fifth agent (tests/test_toy_agent.py)
shows that the registry is all an agent needs to be wired in."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import yaml

from agent_eval import agents, charts, ingest
from conftest import PROJECT_DIR

REGISTERED = agents.registered(PROJECT_DIR)
NAMES = [agent.name for agent in REGISTERED]
INTERFACE = ("sets", "file_rows", "rejected_rows", "set_metrics", "history_items")


def test_the_registry_is_the_seed_and_dbt_parses_the_same_agents():
    with (PROJECT_DIR / "seeds" / "registry" / "agents.csv").open(encoding="utf-8") as handle:
        seed = [row["agent"] for row in csv.DictReader(handle)]
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))
    assert NAMES == seed == ["resume_agent", "recruit_agent", "engagement", "summary"]
    assert project["vars"]["agents"] == seed


def test_every_agent_has_each_part_of_the_contract():
    for agent in REGISTERED:
        module = agent.module
        assert agent.label and module.KINDS and module.TREND_METRICS, agent.name
        part = agent.part("report")
        assert callable(part.context), agent.name
        assert (Path(part.__file__).parent / part.TEMPLATE).is_file(), agent.name
        specs = charts.chart_specs(agent)
        assert specs and len({spec.name for spec in specs}) == len(specs), agent.name
        assert callable(agent.part("samples").write_samples), agent.name
        viewer = agent.part("viewer")  # an item table, or a set page of its own
        assert hasattr(viewer, "ITEM_TABLE") or callable(viewer.set_page), agent.name
        assert agent.part("no_such_part") is None


def test_each_drop_kind_belongs_to_exactly_one_agent_and_is_defined_by_it():
    owned = [kind for agent in REGISTERED for kind in agent.kinds]
    defined = [kind.name for agent in REGISTERED for kind in agent.module.KINDS]
    assert owned == defined  # the seed's input_kinds are the module's kinds, in order
    assert len(owned) == len(set(owned))
    assert [kind.name for kind in ingest.kinds()] == owned


def test_each_agent_provides_the_interface_models_and_its_set_mart():
    for agent in REGISTERED:
        folder = PROJECT_DIR / "models" / "intermediate" / agent.name
        for interface in INTERFACE:
            sql = (folder / f"int_{agent.name}__{interface}.sql").read_text(encoding="utf-8")
            assert "materialized='ephemeral'" in sql, (agent.name, interface)
        schema, table = agent.set_table.split(".")
        assert schema == "marts", agent.name
        assert (PROJECT_DIR / "models" / "marts" / agent.name / f"{table}.sql").is_file(), agent.name


def interface_columns() -> dict[str, list[str]]:
    """The columns each shared model takes from the interface models: the
    lists of its agents_union call."""
    found = {}
    for path in (PROJECT_DIR / "models").rglob("*.sql"):
        for interface, columns in re.findall(
            r"agents_union\('(\w+)', \[(.*?)\]\)", path.read_text(encoding="utf-8"), re.S
        ):
            found[interface] = re.findall(r"'(\w+)'", columns)
    return found


def test_each_interface_model_documents_exactly_the_columns_the_unions_read():
    columns = interface_columns()
    assert sorted(columns) == sorted(INTERFACE)
    for agent in REGISTERED:
        folder = PROJECT_DIR / "models" / "intermediate" / agent.name
        documents = yaml.safe_load((folder / f"_{agent.name}__models.yml").read_text(encoding="utf-8"))
        documented = {model["name"]: [c["name"] for c in model.get("columns", [])] for model in documents["models"]}
        for interface in INTERFACE:
            assert documented[f"int_{agent.name}__{interface}"] == columns[interface], (agent.name, interface)


def test_no_shared_model_or_module_names_the_agents_itself():
    """The shared models loop over var('agents'); the shared Python modules
    over the registry. A literal list of agents there is what the registry
    replaced (a kind missing from such a list silently dropped out)."""
    shared_sql = [
        "models/intermediate/history/int_history__sets.sql",
        "models/intermediate/history/int_history__items.sql",
        "models/marts/history/history_set_metrics.sql",
        "models/marts/ops/file_reconciliation.sql",
        "models/marts/ops/rejected_rows.sql",
    ]
    shared_py = [
        "report.py",
        "charts.py",
        "samples.py",
        "morning.py",
        "viewer/app.py",
        "viewer/pages.py",
        *(f"ingest/{p.name}" for p in (PROJECT_DIR / "src" / "agent_eval" / "ingest").glob("*.py")),
    ]
    names = re.compile("|".join(re.escape(name) for name in NAMES))
    for path in shared_sql:
        text = (PROJECT_DIR / path).read_text(encoding="utf-8")
        code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
        assert not names.search(code), path
    for path in shared_py:
        text = (PROJECT_DIR / "src" / "agent_eval" / path).read_text(encoding="utf-8")
        assert not re.search(r"[\"'](resume_agent|recruit_agent|engagement|summary)[\"']", text), path


def test_report_paths_of_a_file_set_and_of_a_run_folder():
    reports = Path("/r")
    by_name = agents.by_name(PROJECT_DIR)
    assert by_name["resume_agent"].report_path(reports, "2026-11-01/resume_agent_basic.csv") == Path(
        "/r/resume_agent/2026-11-01/resume_agent_basic.md"
    )
    assert by_name["engagement"].report_path(reports, "2026-11-01/engagement/run-7") == Path(
        "/r/engagement/2026-11-01/run-7.md"
    )
    assert agents.label("no_such_agent") == "no_such_agent"
