"""The agents a build leaves out: those that have never had input.

A warehouse of one tool's results still holds every registered agent's
models, and a night with nothing new still visits each of them (dbt
reuses an unchanged node, at a cost per node). An agent no file was ever
delivered for has empty raw history, so every model of its folders is
what the last complete build made of nothing: a build may leave its
folders out (``models/<layer>/<agent>/``, ``seeds/<agent>/``) and the
warehouse is the same. It may do so only when that last build saw this
very project, so the digest of what a build is computed from is kept in
the warehouse by each complete build:

- the project's files dbt reads (dbt_project.yml, profiles.yml,
  selectors.yml, models, macros, seeds, the singular tests), the
  agent_eval package's code (the loaders are Python) and the versions of
  dbt, dbt-duckdb and DuckDB;
- an agent is left out when the warehouse's digest is this one, raw
  history has no file of its kinds, and no entry of the drops folder
  matches one of them (letter case ignored: a misnamed file is reported by
  its agent's models too);
- a first build (no digest yet), ``--full-refresh`` and ``--unit-tests``
  leave nothing out. A build that leaves nothing out may change any
  agent's tables: it erases the digest before dbt runs. Every build that
  succeeds writes its digest with the newest node state dbt recorded
  (agent_eval.pipeline.run_dbt), so a failed build, or one by other means
  since (a plain `dbt build` of an edited project), leaves every agent in
  the next.

docs/decisions/0060-leave-out-agents-without-input.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import duckdb

from agent_eval import project, registry
from agent_eval.ingest.kinds import kinds
from agent_eval.ingest.manifest import list_drop_entries
from agent_eval.project import Paths

# What dbt reads of the project, relative to it: files and folders
PROJECT_FILES = ("dbt_project.yml", "profiles.yml", "selectors.yml")
PROJECT_FOLDERS = ("models", "macros", "seeds", "tests/dbt")
VERSIONED = ("agent-eval-warehouse", "dbt-core", "dbt-duckdb", "duckdb")
LAYERS = ("raw", "staging", "intermediate", "marts")

DIGEST_TABLE = "build_state.complete_build"


def project_digest(project_dir: Path) -> str:
    """The digest of what a build is computed from (the module's list)."""
    package = Path(__file__).parent
    files = project.tree_files(project_dir, PROJECT_FILES, PROJECT_FOLDERS) + [
        (f"agent_eval/{name}", path) for name, path in project.tree_files(package, folders=["."], suffixes=(".py",))
    ]
    return project.content_digest("agent-eval complete build", project.distribution_versions(VERSIONED), files)


# the newest node state (build_state.node_state, which every dbt build
# writes on its way out): kept with the digest, so a build by any other
# means since (plain `dbt build` of an edited project) voids it
NEWEST_STATE = "(select max(updated_at) from build_state.node_state)"


def stored_digest(con: duckdb.DuckDBPyConnection) -> str | None:
    """The digest the last `agent-eval build` that succeeded kept; None for
    a warehouse without one (not built yet, or built since by other means)."""
    try:
        row = con.execute(
            f"select digest from {DIGEST_TABLE} where states_at is not distinct from {NEWEST_STATE}"
        ).fetchone()
    except duckdb.Error:
        return None
    return row[0] if row else None


def store_digest(db_path: Path, digest: str) -> None:
    """Keep the digest of a build that succeeded, with its newest node state."""
    with duckdb.connect(str(db_path)) as con:
        con.execute(f"create or replace table {DIGEST_TABLE} (digest varchar not null, states_at timestamp)")
        con.execute(f"insert into {DIGEST_TABLE} select ?, {NEWEST_STATE}", [digest])


def erase_digest(con: duckdb.DuckDBPyConnection) -> None:
    """Before a build of every agent: until it succeeds, the warehouse is
    no complete build's."""
    con.execute(f"delete from {DIGEST_TABLE}")


def kinds_in_history(con: duckdb.DuckDBPyConnection) -> set[str] | None:
    """The kinds of every file raw history holds; None when it cannot be read."""
    try:
        rows = con.execute("select distinct kind from raw.raw_drop_files where kind is not null").fetchall()
    except duckdb.Error:
        return None
    return {kind for (kind,) in rows}


def kinds_in_drops(drops_dir: Path, wanted: set[str]) -> set[str]:
    """Which of the ``wanted`` kinds an entry of the drops folder matches,
    letter case ignored (the walk stops when it has found them all)."""
    patterns = [(kind.name, re.compile(kind.pattern.pattern, re.IGNORECASE)) for kind in kinds() if kind.name in wanted]
    found: set[str] = set()
    for entry in list_drop_entries(drops_dir):
        for name, pattern in patterns:
            if name not in found and pattern.fullmatch(entry.relative):
                found.add(name)
        if len(found) == len(patterns):
            break
    return found


def agents_without_input(con: duckdb.DuckDBPyConnection, paths: Paths) -> list[str]:
    """The agents without a file in raw history (``con``: the warehouse)
    or the drops folder, in the registry's order (the caller has checked
    the warehouse's digest). Raw history is asked first: the drops folder
    is walked only for the agents it has no file of."""
    seen = kinds_in_history(con)
    if seen is None:
        return []
    candidates = [agent for agent in registry.registered(paths.project_dir) if not set(agent.kinds) & seen]
    if not candidates:
        return []
    delivered = kinds_in_drops(paths.drops_dir, {kind for agent in candidates for kind in agent.kinds})
    return [agent.name for agent in candidates if not set(agent.kinds) & delivered]


def folders(project_dir: Path, agents: Iterable[str]) -> list[str]:
    """The agents' folders the project has, relative to it."""
    found = []
    for agent in agents:
        candidates = [f"models/{layer}/{agent}" for layer in LAYERS] + [f"seeds/{agent}"]
        found += [folder for folder in candidates if (project_dir / folder).is_dir()]
    return found


# dbt_project.yml's name: the first part of every node's qualified name
PROJECT_NAME = "agent_eval"


def exclusion(project_dir: Path, agents: Iterable[str]) -> list[str]:
    """dbt selectors of the agents' folders: a node's qualified name is the
    project, its folders below models/ or seeds/ and its name, so
    ``fqn:agent_eval.raw.<agent>`` is ``models/raw/<agent>/`` and
    ``fqn:agent_eval.<agent>`` is ``seeds/<agent>/``, a data test's its
    YAML file's. dbt matches a qualified name without touching the file
    system; a ``path:`` selector resolves every node's path, once per
    folder (about a second per build that leaves agents out)."""
    return ["fqn:" + ".".join([PROJECT_NAME, *Path(folder).parts[1:]]) for folder in folders(project_dir, agents)]
