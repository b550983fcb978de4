"""The agents the warehouse evaluates: the registry.

The registry is the dbt seed ``seeds/registry/agents.csv`` of the project
(one row per agent: name, Korean label, input kinds, set mart, report
folder, Python module); dbt's side of it is ``var('agents')`` and the data
test ``assert_agent_registry_matches``. This module reads the seed of the
project in use (``agent_eval.project.find_project_dir``: $AGENT_EVAL_PROJECT,
the working directory's project, or this checkout), so an agent added to a
copy of the project is seen by its loaders, reports and pages alike.

The registry sits above the agents: it imports an agent's package by name
(``Agent.module``, ``Agent.part``) and no agent imports it, nor any module
that does (the charts' and viewer's drivers, the CLI): what an agent uses
from shared code is below it (tests/test_agents.py computes the import
graph). Seed and packages are one declaration: the Python side takes an
agent's drop kinds from its package (``KINDS``); the seed's ``input_kinds``
(which dbt reads) and ``var('agents')`` are checked against them
(``disagreements``).

Each agent's Python package (the seed's ``python_module``; the bundled ones
are the packages under ``agent_eval/agents/``) provides:

- in the package itself (imported by the loader inside dbt's Python
  models: keep its imports light)
  - ``KINDS``: its drop kinds (``agent_eval.drop_kinds.DropKind``), which
    the loader matches files against;
  - ``SET_IS_RUN_FOLDER`` (optional, default False): a set is one run
    folder (<date>/<agent folder>/<run id>), not one file;
  - ``TREND_METRICS``: the history_metrics names of its trend chart panels;
- submodule ``report``: ``TEMPLATE`` (a jinja2 file in the package folder),
  ``context(con, set_id) -> dict`` (the mart rows of one set's report) and
  optionally ``after_reports(db_path, reports_dir, all_sets, set_ids)``
  (files written once per build, e.g. a workbook);
- submodule ``charts`` (optional): ``CHARTS``, the chart specs each report
  links (its trend chart: ``agent_eval.charts.series_trend(TREND_METRICS)``);
- submodule ``samples`` (optional): ``write_samples(drops_dir)``, its
  bundled sample drops; optionally ``write_rows(out, rows, seed)``, the
  sample of a given size `agent-eval samples --rows` writes;
- submodule ``viewer`` (optional): its pages in the web viewer, either
  ``ITEM_TABLE`` (an ``agent_eval.viewer.parts.ItemTable``: the item table,
  the item pages and the distributions) or ``TEMPLATE`` and
  ``set_page(cur, set_id, args) -> dict``; optionally an index page
  (``INDEX_TEMPLATE``, ``INDEX_TITLE``, ``index_page(cur) -> dict``) at
  ``/<agent>``, linked from the navigation bar, and ``DOWNLOADS`` (name ->
  builder of a ``viewer.parts.Table``: its own tables' CSV and Parquet). Without one, a set page
  shows the agent's metric cards and gates. Its templates are in the
  package's ``templates`` folder (they extend the viewer's ``base.html``);
- submodule ``commands`` (optional): its part of the command line:
  ``add_commands(subparsers, kit)`` adds its subcommands (each parser's
  default ``run(args) -> exit code``; ``kit`` is what the CLI lends them:
  ``agent_eval.cli.command_kit``) and ``EXPORT_FORMATS`` its formats of
  `agent-eval export` (name -> ``writer(kit, paths, out, sets)``).
docs/adding-an-agent.md is the checklist of an agent's parts.
"""

from __future__ import annotations

import csv
import importlib
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

from agent_eval import settings
from agent_eval.project import find_project_dir

REGISTRY_SEED = Path("seeds") / "registry" / "agents.csv"


@dataclass(frozen=True)
class Agent:
    name: str
    # as the agent's owners say it (Korean): the morning page, the viewer
    label: str
    # the mart with one row per set: what `agent-eval report --set` may name
    set_table: str
    # the folder under the reports directory its reports go to
    report_folder: str
    # the importable module of the agent's Python parts
    python_module: str
    # it scores items a pass verdict applies to (the history's item marts)
    has_items: bool = False

    @property
    def module(self) -> ModuleType:
        return importlib.import_module(self.python_module)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The drop kinds whose files are this agent's input: its package's
        KINDS (the seed's input_kinds, which dbt reads, must name the same:
        ``disagreements``)."""
        return tuple(kind.name for kind in self.module.KINDS)

    def part(self, name: str) -> ModuleType | None:
        """The agent's submodule ``name`` (report, charts, samples); None
        when the agent has none."""
        qualified = f"{self.python_module}.{name}"
        try:
            return importlib.import_module(qualified)
        except ModuleNotFoundError as err:
            if err.name == qualified:
                return None
            raise

    @property
    def set_is_run_folder(self) -> bool:
        """A set is one run folder (<date>/<folder>/<run id>), not one file."""
        return bool(getattr(self.module, "SET_IS_RUN_FOLDER", False))

    def report_path(self, reports_dir: Path, set_id: str) -> Path:
        """Where the agent's renderer writes the report of ``set_id``:
        reports/<folder>/<date>/<file stem>.md, for a set that is a part of
        a file (``<file>#<part>``: a promptfoo output's column)
        reports/<folder>/<date>/<file stem>-<part>.md, or for a run folder
        reports/<folder>/<date>/<run id>.md."""
        if self.set_is_run_folder:
            drop_date, *_, run_id = set_id.split("/")
            return reports_dir / self.report_folder / drop_date / f"{run_id}.md"
        file, _, part = set_id.partition("#")
        stem = Path(file).with_suffix("")
        if part:
            stem = stem.with_name(f"{stem.name}-{part}")
        return reports_dir / self.report_folder / stem.with_name(stem.name + ".md")


def registry_path(project_dir: Path | None = None) -> Path:
    return (project_dir or project_dir_in_use()) / REGISTRY_SEED


def project_dir_in_use() -> Path:
    given = settings.value("AGENT_EVAL_PROJECT")
    return _project_dir(str(given) if given else None, os.getcwd())


@cache
def _project_dir(_env: str | None, cwd: str) -> Path:
    # the loader asks for every file it classifies: resolved once per
    # (environment, working directory)
    return find_project_dir(Path(cwd))


@cache
def _load(seed: Path, mtime_ns: int) -> tuple[Agent, ...]:
    with seed.open(encoding="utf-8", newline="") as handle:
        return tuple(
            Agent(
                name=row["agent"],
                label=row["label_ko"],
                set_table=f"marts.{row['set_model']}",
                report_folder=row["report_folder"],
                python_module=row["python_module"],
                has_items=(row.get("has_items") or "").strip().lower() == "true",
            )
            for row in csv.DictReader(handle)
        )


def registered(project_dir: Path | None = None) -> tuple[Agent, ...]:
    """The agents of the project's registry seed, in the seed's order (the
    order reports are rendered and samples written)."""
    seed = registry_path(project_dir)
    return _load(seed, os.stat(seed).st_mtime_ns)


def by_name(project_dir: Path | None = None) -> dict[str, Agent]:
    return {agent.name: agent for agent in registered(project_dir)}


def label(name: str) -> str:
    """The agent's label; the name itself for an agent not registered."""
    found = by_name().get(name)
    return found.label if found else name


def labels() -> dict[str, str]:
    """agent name -> label, for templates."""
    return {agent.name: agent.label for agent in registered()}


def disagreements(project_dir: Path | None = None) -> list[str]:
    """Where the project's declarations of its agents disagree with the
    registry seed (one line each; none when they agree): dbt's
    ``var('agents')`` and ``var('imported_tools')`` (dbt_project.yml, which
    dbt reads when it parses the project, before any seed is loaded) and
    the seed's ``input_kinds`` (dbt's copy of each package's KINDS)."""
    import yaml

    project_dir = project_dir or project_dir_in_use()
    seed = registry_path(project_dir)
    with seed.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    project = yaml.safe_load((project_dir / "dbt_project.yml").read_text(encoding="utf-8"))
    declared = project.get("vars", {})
    names = [row["agent"] for row in rows]
    tools = [row["agent"] for row in rows if (row.get("imports_tool") or "").strip().lower() == "true"]
    found = []
    if list(declared.get("agents", [])) != names:
        found.append(f"dbt_project.yml vars.agents {declared.get('agents')} is not the seed's agents {names}")
    if list(declared.get("imported_tools", [])) != tools:
        found.append(
            f"dbt_project.yml vars.imported_tools {declared.get('imported_tools')} is not the seed's "
            f"imports_tool agents {tools}"
        )
    for row, agent in zip(rows, registered(project_dir), strict=True):
        if tuple(row["input_kinds"].split()) != agent.kinds:
            found.append(
                f"{agent.name}: the seed's input_kinds {row['input_kinds']!r} are not its package's "
                f"KINDS {' '.join(agent.kinds)!r}"
            )
    return found
