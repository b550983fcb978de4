"""A build leaves out the agents that never had input (agent_eval.left_out),
and the warehouse is the one a build of every agent writes: compared table
by table (scripts/compare_marts.py) with a build that leaves nothing out,
on the same warehouse and drops. The guards: a first build, a changed
project and a file of the agent (tonight's, misnamed, or in history) each
leave the agent in."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml
from test_compare_marts import load_script

from agent_eval import left_out, registry, runner
from conftest import FIXTURES, PROJECT_DIR, Snapshot, Warehouse, copy_project

# the fixtures' drops are the resume agent's files alone
RESUME_ONLY = ("basic",)


def agents_with_files(drops: Path) -> set[str]:
    """The agents a file of the drops belongs to, by its kinds' patterns."""
    names = {path.relative_to(drops).as_posix() for path in drops.rglob("*") if path.is_file()}
    return {
        agent.name
        for agent in registry.registered()
        if any(kind.pattern.fullmatch(name) for kind in agent.module.KINDS for name in names)
    }


def executed_folders(wh: Warehouse) -> set[str]:
    """The agent folders (models/<layer>/<folder>, seeds/<folder>) of the
    nodes the last build ran, reused ones included."""
    manifest = json.loads((wh.paths.target_dir / "manifest.json").read_text())["nodes"]
    results = json.loads((wh.paths.target_dir / "run_results.json").read_text())["results"]
    folders = set()
    for result in results:
        node = manifest.get(result["unique_id"])
        if node is None:
            continue
        parts = Path(node["original_file_path"]).parts
        if parts[0] == "models" and len(parts) > 3:
            folders.add(parts[2])
        elif parts[0] == "seeds" and len(parts) > 2:
            folders.add(parts[1])
    return folders


def stored_digest(wh: Warehouse) -> str | None:
    if not wh.paths.db_path.exists():
        return None
    with duckdb.connect(str(wh.paths.db_path), read_only=True) as con:
        return left_out.stored_digest(con)


def without_input(wh: Warehouse) -> list[str]:
    with duckdb.connect(str(wh.paths.db_path), read_only=True) as con:
        return left_out.agents_without_input(con, wh.paths)


def same_warehouse(reference: Warehouse, wh: Warehouse) -> list[str]:
    compare_marts = load_script()
    return compare_marts.compare(reference.paths.db_path, wh.paths.db_path, set(compare_marts.VOLATILE))


@pytest.fixture
def two_copies(tmp_path, tmp_path_factory):
    """Two copies of the built resume-only snapshot: one to build as the
    pipeline does, one to build leaving nothing out."""
    snapshot = Snapshot.of(tmp_path_factory, RESUME_ONLY)
    assert snapshot.exit_code in (0, 3)  # 3: its deliberately rejected rows
    return Warehouse.copy_of(snapshot, tmp_path / "left_out"), Warehouse.copy_of(snapshot, tmp_path / "reference")


def build_leaving_nothing_out(wh: Warehouse, monkeypatch) -> int:
    with monkeypatch.context() as patch:
        patch.setattr(left_out, "agents_without_input", lambda con, paths: [])
        return wh.build()


def test_a_night_without_their_input_leaves_the_other_agents_out_and_the_warehouse_the_same(two_copies, monkeypatch):
    wh, reference = two_copies
    for each in (wh, reference):
        each.add_fixture("night2")
    expected = {agent.name for agent in registry.registered()} - agents_with_files(wh.drops)
    assert expected and "resume_agent" not in expected
    assert stored_digest(wh) == left_out.project_digest(PROJECT_DIR)
    assert set(without_input(wh)) == expected
    assert wh.build() == build_leaving_nothing_out(reference, monkeypatch)
    assert not executed_folders(wh) & expected
    assert executed_folders(reference) >= expected
    assert same_warehouse(reference, wh) == []


def test_an_agents_first_file_brings_it_back_in(two_copies, monkeypatch):
    """A promptfoo output onto the resume-only warehouse: promptfoo is
    built (its marts hold the file), as a build of every agent builds it."""
    wh, reference = two_copies
    for each in (wh, reference):
        shutil.copytree(FIXTURES / "promptfoo" / "drops" / "2026-11-01", each.drops / "2026-11-01", dirs_exist_ok=True)
    assert "promptfoo" not in without_input(wh)
    assert wh.build() == build_leaving_nothing_out(reference, monkeypatch)
    assert wh.query("select count(*) from marts.promptfoo_runs")[0][0] > 0
    assert same_warehouse(reference, wh) == []
    # and once its file is history, a night without it keeps it in
    (wh.drops / "2026-11-01" / "promptfoo").rename(wh.root / "moved_away")
    assert "promptfoo" not in without_input(wh)


def test_nothing_is_left_out_of_a_first_build_or_when_the_project_changed(tmp_path, two_copies):
    """A build leaves agents out only when the warehouse keeps the digest
    of its own project (agent_eval.pipeline.run_dbt)."""
    wh, _ = two_copies
    digest = left_out.project_digest(PROJECT_DIR)
    assert stored_digest(wh) == digest  # the copy's last build saw this project
    first = Warehouse(tmp_path / "first", first_build=True)
    first.add_fixture("basic")
    assert stored_digest(first) is None  # no warehouse yet
    project = copy_project(tmp_path / "project", singular_tests=True)
    assert left_out.project_digest(project) == digest  # the same files: the same digest
    edited = project / "macros" / "numbers.sql"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n-- edited\n", encoding="utf-8")
    assert left_out.project_digest(project) != digest


def test_a_plain_dbt_build_in_between_voids_the_digest(two_copies):
    """dbt run by hand (of an edited project, say) may have changed any
    table: the digest kept with the newest node state no longer holds."""
    wh, _ = two_copies
    assert stored_digest(wh) is not None
    runner.run_dbt(wh.paths, ["build", "--select", "raw_drop_files"], quiet=True)
    assert stored_digest(wh) is None


def test_a_failed_build_of_every_agent_leaves_no_digest(two_copies):
    """A build of every agent erases the digest before dbt runs and keeps
    its own only if it succeeds: after a failed one (a broken seed of an
    agent without input, which its checks drop), the next build is of
    every agent again, and loads the seed."""
    wh, _ = two_copies
    project = copy_project(wh.root / "project", singular_tests=True)
    # weights summing to 1.1: the seed of an agent without input fails its check
    weights = project / "seeds" / "recruit_agent" / "recruit_weights.csv"
    weights.write_text(weights.read_text(encoding="utf-8").replace("0.2", "0.3", 1), encoding="utf-8")
    broken = Warehouse(wh.root)
    broken.paths = dataclasses.replace(wh.paths, project_dir=project)
    assert broken.build(data_tests=False) == 1
    assert stored_digest(wh) is None
    assert wh.build() in (0, 3)  # the project restored: every agent, the seed loaded again
    assert stored_digest(wh) == left_out.project_digest(PROJECT_DIR)
    assert wh.query("select count(*) from rubric.recruit_weights")[0][0] > 0


def test_a_misnamed_file_of_an_agent_keeps_it_in(tmp_path):
    """A file named like an agent's kind in other letter case is rejected
    by the manifest and reported with that agent's files: the agent stays."""
    (tmp_path / "2026-11-01" / "promptfoo").mkdir(parents=True)
    (tmp_path / "2026-11-01" / "promptfoo" / "out.JSONL").write_text("{}\n", encoding="utf-8")
    (tmp_path / "2026-11-01" / "Resume_Agent_x.CSV").write_text("a\n", encoding="utf-8")
    wanted = {kind for name in ("promptfoo", "resume_agent", "inspect") for kind in registry.by_name()[name].kinds}
    found = left_out.kinds_in_drops(tmp_path, wanted)
    assert "promptfoo_output" in found
    assert any(kind in found for kind in registry.by_name()["resume_agent"].kinds)
    assert not found & set(registry.by_name()["inspect"].kinds)


TIME = ("current_date", "current_timestamp", "now()", "today()", "as_of")


def test_every_model_of_an_agent_without_input_is_empty_or_made_of_its_seeds(module_built):
    """What leaving an agent out relies on: with no file of its kinds, each
    of its models holds nothing, or rows made of seeds alone and of no date
    (seeds and code are in the digest), so the last complete build's
    tables are what any later build would write."""
    wh, _ = module_built(*RESUME_ONLY)
    nodes = json.loads((wh.paths.target_dir / "manifest.json").read_text())["nodes"]

    def reads_raw_history(unique_id: str) -> bool:
        node = nodes[unique_id]
        if node["original_file_path"].startswith("models/raw/"):
            return True
        return any(
            reads_raw_history(parent) for parent in node.get("depends_on", {}).get("nodes", []) if parent in nodes
        )

    idle = {agent.name for agent in registry.registered()} - agents_with_files(wh.drops)
    empty = from_seeds = 0
    for unique_id, node in nodes.items():
        parts = Path(node["original_file_path"]).parts
        if node["resource_type"] != "model" or node["config"]["materialized"] == "ephemeral":
            continue
        if len(parts) > 3 and parts[2] in idle:
            relation = f'{node["schema"]}."{node["alias"]}"'
            if wh.query(f"select count(*) from {relation}")[0][0] == 0:
                empty += 1
                continue
            assert not reads_raw_history(unique_id), f"{relation} has rows without input"
            code = (PROJECT_DIR / node["original_file_path"]).read_text(encoding="utf-8").lower()
            assert not any(word in code for word in TIME), f"{relation} may hold a date"
            from_seeds += 1
    assert empty > 50 and from_seeds < empty


def test_the_exclusion_of_an_agent_selects_its_folders_nodes_and_no_other(module_built):
    """The selectors a build leaves an agent out with (qualified names,
    matched by dbt's own rule) select exactly the nodes whose file, or the
    YAML file that declares them, lies in one of the agent's folders."""
    from dbt.graph.selector_methods import QualifiedNameSelectorMethod

    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))
    assert project["name"] == left_out.PROJECT_NAME
    wh, _ = module_built(*RESUME_ONLY)
    nodes = json.loads((wh.paths.target_dir / "manifest.json").read_text())["nodes"]
    method = QualifiedNameSelectorMethod(None, None, [])
    for agent in registry.registered():
        folders = left_out.folders(PROJECT_DIR, [agent.name])
        selectors = [s.removeprefix("fqn:") for s in left_out.exclusion(PROJECT_DIR, [agent.name])]
        assert len(selectors) == len(folders) >= 4, agent.name
        in_folders = {
            unique_id
            for unique_id, node in nodes.items()
            if any(
                Path(file).is_relative_to(folder)
                for file in (node["original_file_path"], (node.get("patch_path") or "://").split("://")[1])
                if file
                for folder in folders
            )
        }
        selected = {
            unique_id
            for unique_id, node in nodes.items()
            if any(method.node_is_match(s, node["fqn"], bool(node.get("version"))) for s in selectors)
        }
        assert selected == in_folders, agent.name
        assert any(node["resource_type"] == "test" for node in (nodes[u] for u in selected)), agent.name


def test_the_snapshots_built_from_nothing_have_a_file_of_every_agent(tmp_path):
    """The test warehouses start from the session's empty project, but for
    the snapshots of ``Snapshot.FIRST_BUILDS``: between them, every agent's
    models still build a first night of data from nothing."""
    covered: set[str] = set()
    for fixtures in Snapshot.FIRST_BUILDS:
        wh = Warehouse(tmp_path / "+".join(fixtures), first_build=True)
        for name in fixtures:
            wh.add_fixture(name)
        covered |= agents_with_files(wh.drops)
    assert covered == {agent.name for agent in registry.registered()}
