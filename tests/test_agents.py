"""The agent registry (seed seeds/registry/agents.csv, read by
agent_eval.registry; var('agents') on dbt's side) and each registered agent's
parts agree: every agent has its drop kinds, trend panels, report module and
template, charts and samples, its interface models, its set mart; no module
keeps a list of agents of its own, and an agent's code lives in its own
package and folders. The import graph runs one way: shared code below the
registry, the agents below that, the registry and its readers above. The toy
fifth agent (tests/test_toy_agent.py) shows that the registry is all an
agent needs to be wired in."""

from __future__ import annotations

import ast
import csv
import re
import shutil
from pathlib import Path

import yaml

from agent_eval import charts, ingest, registry, report
from agent_eval.registry import REGISTRY_SEED
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
    assert registry.disagreements(PROJECT_DIR) == []


def copy_declarations(target: Path) -> Path:
    """The files that declare the agents (dbt_project.yml, the registry
    seed) in a project of their own."""
    (target / REGISTRY_SEED).parent.mkdir(parents=True)
    shutil.copy2(PROJECT_DIR / "dbt_project.yml", target / "dbt_project.yml")
    shutil.copy2(PROJECT_DIR / REGISTRY_SEED, target / REGISTRY_SEED)
    return target


def test_an_agent_is_declared_once_and_each_copy_is_checked(tmp_path):
    """The package declares an agent's drop kinds (KINDS): the registry takes
    them from there, whatever the seed says; the seed's input_kinds (dbt
    reads them) and dbt_project.yml's vars (dbt reads them before any seed
    is loaded) are copies, and each disagreement is named."""
    project = copy_declarations(tmp_path / "p")
    seed = project / REGISTRY_SEED
    with seed.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    last = rows[-1]
    package_kinds = tuple(kind.name for kind in registry.by_name(PROJECT_DIR)[last["agent"]].module.KINDS)
    last["input_kinds"] = "no_such_kind"
    with seed.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert registry.by_name(project)[last["agent"]].kinds == package_kinds
    text = (project / "dbt_project.yml").read_text(encoding="utf-8")
    first, second = NAMES[0], NAMES[1]
    swapped = text.replace(f"agents: [{first}, {second},", f"agents: [{second}, {first},")
    assert swapped != text
    (project / "dbt_project.yml").write_text(swapped, encoding="utf-8")
    found = registry.disagreements(project)
    assert len(found) == 2, found
    assert "vars.agents" in found[0] and f"{last['agent']}: the seed's input_kinds 'no_such_kind'" in found[1]


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
    modules over agent_eval.registry. An agent's name as a literal there is
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
    offenders = [str(p.relative_to(package)) for p in shared_py if literal.search(p.read_text(encoding="utf-8"))]
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


# ---------- an agent's code lives in its package; the imports run one way

SRC = PROJECT_DIR / "src"
AGENTS_PACKAGE = "agent_eval.agents"


def import_graph(src: Path) -> dict[str, set[str]]:
    """Each module of agent_eval -> the agent_eval modules it imports (any
    import statement, at any depth of the module: one in a function is an
    arrow too). A name imported from a package is an arrow to its module
    when it is one, else to the package. The arrows a package's own
    __init__ draws are its own, not those of every module inside it."""
    files = {}
    for path in (src / "agent_eval").rglob("*.py"):
        parts = path.relative_to(src).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for module, path in files.items():
        depth = len(module.split(".")) + (path.name == "__init__.py")
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*module.split(".")[: depth - node.level], *([node.module] if node.module else [])])
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            else:
                continue
            for name in names:
                while name and name not in files:
                    name = name.rpartition(".")[0]
                if name and name != module:
                    found.add(name)
        graph[module] = found
    return graph


def with_the_registry_arrows(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph with the imports the registry makes by name (Agent.module,
    Agent.part): an arrow from it to every module of the agents' packages."""
    return {
        module: found
        | ({m for m in graph if m.startswith(AGENTS_PACKAGE + ".")} if module == "agent_eval.registry" else set())
        for module, found in graph.items()
    }


def a_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (its modules in order, the first repeated at
    the end), or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = "open"
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == "open":
                return path[path.index(imported) :] + [imported]
            if imported not in state and (found := visit(imported)):
                return found
        state[module] = "done"
        path.pop()
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def above(graph: dict[str, set[str]], module: str) -> set[str]:
    """The modules that import ``module``, directly or through others."""
    found, changed = {module}, True
    while changed:
        changed = False
        for importer, imported in graph.items():
            if importer not in found and imported & found:
                found.add(importer)
                changed = True
    return found - {module}


def test_the_imports_run_one_way_and_no_agent_imports_from_above_the_registry():
    """Shared code (ingest's readers, db, charts' drawing, the viewer's
    parts, ...) is below the agents, the registry above them (it imports
    them by name), and what reads the registry (report, charts' rendering,
    the viewer's pages, the CLI) above it. No arrow runs back up: no agent
    module imports the registry or anything that does, and the graph with
    the registry's arrows has no cycle. What an agent needs of a module
    above is moved down or passed in (agent_eval.cli.command_kit)."""
    graph = import_graph(SRC)
    assert "agent_eval.registry" in graph and "agent_eval.agents.summary.commands" in graph
    agent_modules = {m for m in graph if m.startswith(AGENTS_PACKAGE + ".")}
    assert sorted(agent_modules & above(graph, "agent_eval.registry")) == []
    assert a_cycle(with_the_registry_arrows(graph)) is None


def test_no_shared_module_serves_one_agent():
    """Only the registry reaches an agent's package (by name): a shared
    module importing one is that agent's code outside its package."""
    graph = import_graph(SRC)
    offenders = {
        module: sorted(m for m in imported if m.startswith(AGENTS_PACKAGE + "."))
        for module, imported in graph.items()
        if not module.startswith(AGENTS_PACKAGE)
    }
    assert {module: found for module, found in offenders.items() if found} == {}


def test_the_graph_guard_sees_an_arrow_back_up(tmp_path):
    package = tmp_path / "agent_eval"
    (package / "agents" / "toy").mkdir(parents=True)
    for path, text in {
        "__init__.py": "",
        "registry.py": "import importlib\n",
        "charts.py": "from agent_eval import registry\n",
        "agents/__init__.py": "",
        "agents/toy/__init__.py": "",
        "agents/toy/charts.py": "def plot():\n    from agent_eval.charts import registry\n",
    }.items():
        (package / path).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path)
    assert graph["agent_eval.agents.toy.charts"] == {"agent_eval.charts"}
    assert above(graph, "agent_eval.registry") == {"agent_eval.charts", "agent_eval.agents.toy.charts"}
    assert a_cycle(with_the_registry_arrows(graph)) == [
        "agent_eval.agents.toy.charts",
        "agent_eval.charts",
        "agent_eval.registry",
        "agent_eval.agents.toy.charts",
    ]


def macro_owners() -> dict[Path, set[str]]:
    """Each macro file of the shared folder (macros/*.sql) -> who calls its
    macros from outside the file: an agent (a file in one of its folders)
    or 'shared' (any other model, macro, test or dbt_project.yml)."""
    shared = sorted((PROJECT_DIR / "macros").glob("*.sql"))
    defined = {path: re.findall(r"\{%-?\s*macro\s+(\w+)\s*\(", path.read_text(encoding="utf-8")) for path in shared}
    callers = [
        *(PROJECT_DIR / "models").rglob("*.sql"),
        *(PROJECT_DIR / "models").rglob("*.yml"),
        *(PROJECT_DIR / "macros").rglob("*.sql"),
        *(PROJECT_DIR / "seeds").rglob("*.yml"),
        *(PROJECT_DIR / "tests" / "dbt").rglob("*.sql"),
        PROJECT_DIR / "dbt_project.yml",
    ]
    owners: dict[Path, set[str]] = {path: set() for path in shared}
    for caller in callers:
        text = caller.read_text(encoding="utf-8")
        agent = next((n for n in NAMES if n in caller.relative_to(PROJECT_DIR).parts[:-1]), "shared")
        for path, macros in defined.items():
            if caller != path and any(re.search(rf"\b{m}\s*\(", text) for m in macros):
                owners[path].add(agent)
    return owners


def test_no_macro_file_of_the_shared_folder_serves_one_agent():
    """A macro file whose macros only one agent's models call belongs in
    macros/<agent>/ (dbt finds macros in macro-paths' subfolders); the
    shared folder's subfolders are agents' folders."""
    owners = macro_owners()
    assert len(owners) > 10
    assert {path.name: found for path, found in owners.items() if len(found) == 1 and found != {"shared"}} == {}
    folders = [p.name for p in (PROJECT_DIR / "macros").iterdir() if p.is_dir()]
    assert folders and set(folders) <= set(NAMES)
    assert not [p.name for p in (PROJECT_DIR / "macros").glob("*.sql") if p.stem in NAMES]


def test_no_template_of_the_shared_viewer_folder_serves_one_agent():
    """The viewer's folder holds the shared templates; an agent's own pages
    are in its package's templates folder. A shared template an agent's
    viewer part names is one several agents name (the imported tools'
    set page)."""
    from agent_eval.viewer import app

    shared = PROJECT_DIR / "src" / "agent_eval" / "viewer" / "templates"
    named: dict[str, list[str]] = {}
    for agent in REGISTERED:
        part = agent.part("viewer")
        for template in (getattr(part, "TEMPLATE", None), getattr(part, "INDEX_TEMPLATE", None)):
            if template:
                named.setdefault(app.template_of(agent.name, template), []).append(agent.name)
    own = {name for name in named if "/" in name}
    assert own  # some agent has pages of its own
    for name in own:
        agent, _, file = name.partition("/")
        assert (Path(registry.by_name(PROJECT_DIR)[agent].module.__file__).parent / "templates" / file).is_file()
        assert not (shared / file).exists(), name
    assert {name: agents for name, agents in named.items() if "/" not in name and len(agents) < 2} == {}
    assert all((shared / name).is_file() for name in named if "/" not in name)
