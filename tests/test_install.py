"""The environment is the lock: `make setup` installs with
`-c constraints.txt`, so every package the lock pins is installed at exactly
that version. A fresh clone that resolved the newest releases instead (a
release of any dependency could change behaviour overnight) fails here."""

from __future__ import annotations

import re
import shutil
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

from conftest import PROJECT_DIR

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)")


def pins() -> dict[str, str]:
    text = (PROJECT_DIR / "constraints.txt").read_text(encoding="utf-8")
    return {m.group(1): m.group(2) for line in text.splitlines() if (m := PIN.match(line))}


def test_every_pinned_package_is_installed_at_its_locked_version():
    locked = pins()
    assert {"dbt-core", "dbt-duckdb", "duckdb", "flask", "jinja2", "pytest"} <= set(locked)
    wrong = {}
    for name, pinned in locked.items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = None
        if installed != pinned:
            wrong[name] = (pinned, installed)
    assert wrong == {}, f"installed versions differ from constraints.txt (run `make setup`): {wrong}"


def test_the_lock_covers_every_declared_dependency():
    text = (PROJECT_DIR / "pyproject.toml").read_text(encoding="utf-8")
    declared = set(re.findall(r'^\s+"([A-Za-z0-9][A-Za-z0-9._-]*)[<>=!~\[]', text, flags=re.M))
    normal = {n.lower().replace("_", "-") for n in pins()}
    missing = {d for d in declared if d.lower().replace("_", "-") not in normal}
    assert missing == set(), f"pyproject.toml declares {missing} but constraints.txt does not pin them: make lock"


def planned_installs(target: str, venv: Path) -> list[str]:
    """The pip installs `make <target>` would run into a virtualenv that
    does not exist yet (a fresh clone), as `make -n` lists them."""
    planned = subprocess.run(
        ["make", "-n", target, f"VENV={venv}"], cwd=PROJECT_DIR, capture_output=True, text=True, check=True
    )
    return [line for line in planned.stdout.splitlines() if " install " in line and "/pip " in line]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_demo_installs_the_runtime_only_and_the_tests_add_the_dev_extra(tmp_path):
    venv = tmp_path / "venv"
    demo = planned_installs("demo", venv)
    assert any(line.endswith("-c constraints.txt -e .") for line in demo), demo
    assert not any("[dev]" in line for line in demo), demo
    for target in ("test", "lint", "test-fast"):
        assert any(line.endswith('-c constraints.txt -e ".[dev]"') for line in planned_installs(target, venv)), target
    # CI (`bash .ci/run`, from nothing) runs `make test`: it gets the dev extra
    assert re.search(r"^make test$", (PROJECT_DIR / ".ci" / "run").read_text(encoding="utf-8"), flags=re.M)
