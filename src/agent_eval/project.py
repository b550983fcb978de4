"""Where things are: the dbt project, the warehouse file, the drops folder,
the published (served) copy.

Every path the CLI hands to dbt is absolute, so dbt (which runs with the
project root as its working directory) and the user agree on what a relative
path meant.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from agent_eval import settings

PROJECT_MARKER = "dbt_project.yml"
DEFAULT_DB = Path("warehouse") / "agent_eval.duckdb"
DEFAULT_DROPS = Path("data") / "drops"
DEFAULT_REPORTS = Path("reports")


def find_project_dir(start: Path | None = None) -> Path:
    """The agent_eval dbt project: $AGENT_EVAL_PROJECT, an ancestor of the
    working directory, or the checkout this package was installed from."""
    env = settings.value("AGENT_EVAL_PROJECT")
    if env:
        return env.resolve()
    candidates = [start or Path.cwd()]
    candidates += list(candidates[0].resolve().parents)
    candidates.append(Path(__file__).resolve().parents[2])
    for candidate in candidates:
        marker = candidate / PROJECT_MARKER
        if marker.is_file() and "name: agent_eval" in marker.read_text(encoding="utf-8"):
            return candidate.resolve()
    raise FileNotFoundError(
        "cannot find the agent_eval dbt project (dbt_project.yml); run from the repository or set AGENT_EVAL_PROJECT"
    )


@dataclass(frozen=True)
class Paths:
    project_dir: Path
    db_path: Path
    drops_dir: Path
    reports_dir: Path
    # dbt's target/ and logs/ (default: under the project). Tests give each
    # warehouse its own, so dbt runs never share partial-parse state.
    dbt_work_dir: Path | None = None
    # Where the build publishes the served copy (DuckDB file + Parquet);
    # default: `published/` beside the working database.
    published_dir: Path | None = None

    @property
    def publish_dir(self) -> Path:
        return self.published_dir or self.db_path.parent / "published"

    @property
    def published_db(self) -> Path:
        """The file analysts and BI tools open (never the working database)."""
        return self.publish_dir / self.db_path.name

    @property
    def published_parquet(self) -> Path:
        """One folder per published table, `<table>/data.parquet`."""
        return self.publish_dir / f"{self.db_path.stem}_parquet"

    def _dbt_dir(self, name: str, env_name: str) -> Path:
        """dbt's `name` folder for this warehouse: under the warehouse's
        dbt_work_dir, else $env_name (relative to the project), else under
        the project."""
        if self.dbt_work_dir is not None:
            return self.dbt_work_dir / name
        env = os.environ.get(env_name)
        if env:
            path = Path(env).expanduser()
            return path if path.is_absolute() else self.project_dir / path
        return self.project_dir / name

    @property
    def target_dir(self) -> Path:
        """dbt's target/ (manifest.json, run_results.json) for this warehouse."""
        return self._dbt_dir("target", "DBT_TARGET_PATH")

    @property
    def log_dir(self) -> Path:
        """dbt's logs/ for this warehouse."""
        return self._dbt_dir("logs", "DBT_LOG_PATH")

    def dbt_location(self) -> tuple[Path, str]:
        """(working directory, profile path of the warehouse) for dbt.

        The profile's path is part of what dbt compares before reusing its
        saved parse state, so it is given relative to where dbt runs: the
        project root for a warehouse inside the project (as a user typing
        `dbt build` there has it), else the warehouse's folder. Warehouses
        with the same file name then share one parse state (a fresh test
        warehouse does not re-parse the project)."""
        try:
            return self.project_dir, self.db_path.relative_to(self.project_dir).as_posix()
        except ValueError:
            return self.db_path.parent, self.db_path.name

    def dbt_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["DBT_TARGET_PATH"] = str(self.target_dir)
        env["DBT_LOG_PATH"] = str(self.log_dir)
        env["AGENT_EVAL_DB"] = self.dbt_location()[1]
        env["AGENT_EVAL_DROPS"] = str(self.drops_dir)
        env["DBT_PROFILES_DIR"] = str(self.project_dir)
        # the project whose agent registry the loader models read (agent_eval.registry)
        env["AGENT_EVAL_PROJECT"] = str(self.project_dir)
        env.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        return env


def resolve_paths(
    db: str | None = None,
    drops: str | None = None,
    reports: str | None = None,
    project_dir: str | None = None,
    published: str | None = None,
) -> Paths:
    """Options win over environment variables, which win over defaults.

    Relative options are relative to the working directory; relative
    defaults are relative to the project root.
    """
    root = Path(project_dir).resolve() if project_dir else find_project_dir()

    def pick(option: str | None, env_name: str, default: Path) -> Path:
        if option:
            return Path(option).expanduser().resolve()
        path = settings.value(env_name)
        if path:
            return path.resolve() if path.is_absolute() else (root / path).resolve()
        return (root / default).resolve()

    db_path = pick(db, "AGENT_EVAL_DB", DEFAULT_DB)
    return Paths(
        project_dir=root,
        db_path=db_path,
        drops_dir=pick(drops, "AGENT_EVAL_DROPS", DEFAULT_DROPS),
        reports_dir=pick(reports, "AGENT_EVAL_REPORTS", DEFAULT_REPORTS),
        published_dir=pick(published, "AGENT_EVAL_PUBLISHED", db_path.parent / "published"),
    )


def tree_files(
    root: Path, names: Iterable[str] = (), folders: Iterable[str] = (), suffixes: tuple[str, ...] | None = None
) -> list[tuple[str, Path]]:
    """(posix path relative to ``root``, path) of the named files, present
    or not, and of every file under the folders (``suffixes``: of those
    endings only; ``__pycache__`` never), sorted."""
    files = [(name, root / name) for name in names]
    for folder in folders:
        base = root / folder
        if not base.is_dir():
            continue
        for path in base.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and (suffixes is None or path.suffix in suffixes):
                files.append((path.relative_to(root).as_posix(), path))
    return sorted(files)


def distribution_versions(names: Iterable[str]) -> list[tuple[str, str]]:
    """(name, installed version, or "absent") of each distribution."""
    found = []
    for name in names:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, "absent"))
    return found


def content_digest(label: str, versions: Iterable[tuple[str, str]], files: Iterable[tuple[str, Path]]) -> str:
    """The sha256 of what something is computed from: a label line, a line
    per (name, version), then a line per (name, path) with the file's size
    ("absent" for a missing file) followed by its bytes."""
    digest = hashlib.sha256(f"{label}\n".encode())
    for name, version in versions:
        digest.update(f"version {name} {version}\n".encode())
    for name, path in files:
        data = path.read_bytes() if path.is_file() else None
        digest.update(f"file {name} {'absent' if data is None else len(data)}\n".encode())
        if data is not None:
            digest.update(data)
    return digest.hexdigest()
