"""Shared helpers: build a throw-away warehouse from a drops folder."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from agent_eval import cli
from agent_eval.project import Paths, find_project_dir

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT_DIR = find_project_dir(Path(__file__).parent)


class Warehouse:
    """A drops folder, a DuckDB file and a reports folder under tmp_path."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.paths = Paths(
            project_dir=PROJECT_DIR,
            db_path=root / "warehouse.duckdb",
            drops_dir=root / "drops",
            reports_dir=root / "reports",
            dbt_work_dir=root / "dbt",
        )
        self.paths.drops_dir.mkdir(parents=True, exist_ok=True)

    @property
    def drops(self) -> Path:
        return self.paths.drops_dir

    def add_fixture(self, name: str) -> None:
        shutil.copytree(FIXTURES / name, self.drops, dirs_exist_ok=True)

    def build(self, *, full_refresh: bool = False, reports: bool = False, data_tests: bool = True) -> int:
        """cmd_build without dbt unit tests; ``data_tests=False`` also leaves
        the data tests out (for builds that check loading, not the tests:
        about half of a build's time is its ~500 data tests)."""
        return cli.cmd_build(self.paths, full_refresh=full_refresh,
                             skip_unit_tests=True, reports=reports, data_tests=data_tests)

    def query(self, sql: str, params: list[Any] | None = None) -> list[tuple]:
        with duckdb.connect(str(self.paths.db_path), read_only=True) as con:
            return con.execute(sql, params or []).fetchall()

    def dicts(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        with duckdb.connect(str(self.paths.db_path), read_only=True) as con:
            cursor = con.execute(sql, params or [])
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    return Warehouse(tmp_path)


@pytest.fixture(scope="module")
def module_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Warehouse]:
    def make(name: str) -> Warehouse:
        return Warehouse(tmp_path_factory.mktemp(name))

    return make
