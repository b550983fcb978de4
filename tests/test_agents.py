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

from agent_eval import charts, ingest, registry, report
from conftest import PROJECT_DIR

REGISTERED = registry.registered(PROJECT_DIR)
NAMES = [agent.name for agent in REGISTERED]
INTERFACE = ("sets", "file_rows", "rejected_rows", "set_metrics", "history_items")


def test_the_registry_is_the_seed_and_dbt_parses_the_same_agents():
    with (PROJECT_DIR / "seeds" / "registry" / "agents.csv").open(encoding="utf-8") as handle:
        seed = [row["agent"] for row in csv.DictReader(handle)]
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))
    assert seed == NAMES and len(set(seed)) == len(seed) > 0
    assert project["vars"]["agents"] == seed


def test_every_agent_has_each_part_of_the_contract():
    for agent in REGISTERED:
        module = agent.module
        assert agent.label and module.KINDS and module.TREND_METRICS, agent.name
        part = agent.part("report")
        assert callable(part.context), agent.name
        # the agent's own template, or one every agent of a kind shares (agent_eval/templates)
        assert any((folder / part.TEMPLATE).is_file() for folder in (Path(part.__file__).parent, report.TEMPLATES)), (
            agent.name
        )
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


# Python modules outside agent_eval/agents/ that still serve one agent (the
# evaluate, judge and export commands and the CLI's workbook path): named
# exceptions until they move into their agents' packages.
PY_EXCEPTIONS = {"cli.py", "evaluate.py", "export.py", "judge.py"}


def shared_dbt_files() -> list[Path]:
    """Every dbt file that belongs to no agent: models outside an agent's
    folders, macros (but an agent's own macros/<agent>.sql), seeds' YAML
    outside an agent's folder (the registry seed is the list itself),
    singular tests."""
    found = []
    for path in (PROJECT_DIR / "models").glob("*/*/*"):
        if path.parent.name not in NAMES and path.suffix in (".sql", ".yml", ".py"):
            found.append(path)
    found += [p for p in (PROJECT_DIR / "macros").glob("*") if p.stem not in NAMES and p.suffix in (".sql", ".yml")]
    found += [p for p in (PROJECT_DIR / "seeds").glob("*/*.yml") if p.parent.name not in NAMES]
    found += list((PROJECT_DIR / "tests" / "dbt").glob("*.sql"))
    return sorted(found)


def code_of(path: Path) -> str:
    """A file's text without its prose: SQL and Jinja comments, YAML
    descriptions (docs may name an agent as an example)."""
    text = re.sub(r"\{#.*?#\}", "", path.read_text(encoding="utf-8"), flags=re.S)
    lines = text.splitlines()
    if path.suffix == ".yml":
        kept, in_prose = [], None
        for line in lines:
            indent = len(line) - len(line.lstrip())
            if in_prose is not None and (not line.strip() or indent > in_prose):
                continue
            in_prose = indent if re.match(r"\s*(- )?description:", line) else None
            if in_prose is None:
                kept.append(line)
        return "\n".join(kept)
    return "\n".join(line.split("--")[0] if path.suffix == ".sql" else line for line in lines)


def test_no_shared_file_names_an_agent():
    """The shared models, macros, seeds' YAML and singular tests loop over
    the registry (var('agents'), the seed's has_items); the shared Python
    modules over agent_eval.agents. An agent's name as a literal there is
    what the registry replaced: a new agent missing from such a list
    silently drops out (no flips, no pass@k). The agents are the
    registry's, whatever they are."""
    literal = re.compile(r"[\"'](" + "|".join(re.escape(name) for name in NAMES) + r")[\"']")
    files = shared_dbt_files()
    assert len(files) > 40  # the scan reaches the shared folders
    offenders = [str(p.relative_to(PROJECT_DIR)) for p in files if literal.search(code_of(p))]
    assert offenders == []
    package = PROJECT_DIR / "src" / "agent_eval"
    shared_py = [p for p in package.rglob("*.py") if "agents" not in p.relative_to(package).parts]
    offenders = [
        str(p.relative_to(package))
        for p in shared_py
        if p.name not in PY_EXCEPTIONS and literal.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_guard_sees_an_agent_named_in_code_and_not_in_prose(tmp_path):
    name = NAMES[0]
    sql = tmp_path / "m.sql"
    sql.write_text(f"-- the {name!r} items\n{{# '{name}' #}}\nselect 1\n", encoding="utf-8")
    yml = tmp_path / "m.yml"
    yml.write_text(f"models:\n  - name: m\n    description: >\n      '{name}' only\n", encoding="utf-8")
    assert f"'{name}'" not in code_of(sql) + code_of(yml)
    sql.write_text(f"select 1 where agent in ('{name}') -- note\n", encoding="utf-8")
    yml.write_text(f"models:\n  - name: m\n    checks:\n      known: agent in ('{name}')\n", encoding="utf-8")
    assert f"'{name}'" in code_of(sql) and f"'{name}'" in code_of(yml)


def test_report_paths_of_a_file_set_and_of_a_run_folder():
    reports = Path("/r")
    by_name = registry.by_name(PROJECT_DIR)
    assert by_name["resume_agent"].report_path(reports, "2026-11-01/resume_agent_basic.csv") == Path(
        "/r/resume_agent/2026-11-01/resume_agent_basic.md"
    )
    assert by_name["engagement"].report_path(reports, "2026-11-01/engagement/run-7") == Path(
        "/r/engagement/2026-11-01/run-7.md"
    )
    assert registry.label("no_such_agent") == "no_such_agent"
