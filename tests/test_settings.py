"""agent_eval.settings: every AGENT_EVAL_* variable is read and validated
there and nowhere else, a wrong value stops `agent-eval` in one line naming
the variable, and docs/operations.md's table is the module's."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from agent_eval import cli, settings
from agent_eval.agents.summary import judge

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("AGENT_EVAL_MAX_RECORD_MB", "lots", "AGENT_EVAL_MAX_RECORD_MB='lots' is not a number of MB"),
        ("AGENT_EVAL_MAX_RECORD_MB", "0", "AGENT_EVAL_MAX_RECORD_MB='0' must be a positive number of MB"),
        ("AGENT_EVAL_AS_OF", "2026-02-30", "AGENT_EVAL_AS_OF='2026-02-30' is not a date (YYYY-MM-DD)"),
        (
            "AGENT_EVAL_DUCKDB_MEMORY",
            "a lot",
            "AGENT_EVAL_DUCKDB_MEMORY='a lot' is not a memory size (a number and a unit: 512MB, 1GB, 2GiB)",
        ),
        ("AGENT_EVAL_JUDGE_CONCURRENCY", "0", "AGENT_EVAL_JUDGE_CONCURRENCY='0' must be at least 1"),
        ("AGENT_EVAL_JUDGE_MAX_ATTEMPTS", "2.5", "AGENT_EVAL_JUDGE_MAX_ATTEMPTS='2.5' is not a whole number"),
        ("AGENT_EVAL_JUDGE_TIMEOUT_SEC", "soon", "AGENT_EVAL_JUDGE_TIMEOUT_SEC='soon' is not a number"),
        # a secret's value is never shown
        (
            "AGENT_EVAL_SERVE_TOKEN",
            " hunter2-but-longer ",
            "AGENT_EVAL_SERVE_TOKEN has blanks around it (or is only blanks): set it to the secret alone",
        ),
    ],
)
def test_a_wrong_value_stops_any_command_in_one_line_naming_it(monkeypatch, capsys, tmp_path, name, text, line):
    monkeypatch.setenv(name, text)
    # `gates` on a warehouse that does not exist would say so: the setting is checked first
    assert cli.main(["gates", "--db", str(tmp_path / "none.duckdb")]) == cli.EXIT_USAGE
    out, err = capsys.readouterr()
    assert err == f"agent-eval: {line}\n" and out == ""


def test_values_are_typed_and_an_empty_one_is_unset():
    env = {
        "AGENT_EVAL_MAX_RECORD_MB": " 0.5 ",
        "AGENT_EVAL_AS_OF": "2026-11-03",
        "AGENT_EVAL_JUDGE_MAX_ITEMS": "0",
        "AGENT_EVAL_DB": "~/w.duckdb",
        "AGENT_EVAL_REPORTS": "",
    }
    assert settings.value("AGENT_EVAL_MAX_RECORD_MB", env) == 0.5
    assert str(settings.value("AGENT_EVAL_AS_OF", env)) == "2026-11-03"
    assert settings.value("AGENT_EVAL_JUDGE_MAX_ITEMS", env) == 0
    assert settings.value("AGENT_EVAL_DB", env) == Path.home() / "w.duckdb"
    assert settings.value("AGENT_EVAL_REPORTS", env) is None
    assert settings.value("AGENT_EVAL_PUBLISHED", env) is None
    settings.check(env)


def python_files() -> list[Path]:
    return [
        path
        for folder in ("src", "models", "scripts")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path != ROOT / "src" / "agent_eval" / "settings.py"
    ]


def environment_reads(path: Path, root: Path = ROOT) -> list[str]:
    """Where ``path`` reads an AGENT_EVAL_* variable from the environment:
    os.environ.get, os.getenv or os.environ[...] of such a name, given as a
    literal or as a module constant holding one."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name) and str(node.value.value).startswith(settings.PREFIX)
    }

    def names_a_setting(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return str(node.value).startswith(settings.PREFIX)
        return isinstance(node, ast.Name) and node.id in constants

    found = []
    for node in ast.walk(tree):
        read = (
            isinstance(node, ast.Call)
            and bool(node.args)
            and names_a_setting(node.args[0])
            and ast.unparse(node.func).endswith(("environ.get", "getenv"))
        ) or (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and names_a_setting(node.slice)
            and ast.unparse(node.value).endswith("environ")
        )
        if read:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_but_settings_reads_an_agent_eval_variable():
    reads = [read for path in python_files() for read in environment_reads(path)]
    assert reads == []


def test_the_guard_finds_the_reads_it_forbids(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        'import os\nENV = "AGENT_EVAL_X"\n'
        'a = os.environ.get("AGENT_EVAL_DB")\n'
        "b = os.getenv(ENV)\n"
        'c = os.environ["AGENT_EVAL_DROPS"]\n'
        'os.environ["AGENT_EVAL_PROJECT"] = "/p"\n'
        'd = os.environ.get("HOME")\n',
        encoding="utf-8",
    )
    reads = environment_reads(sample, tmp_path)
    assert [read.split(":")[1] for read in reads] == ["3", "4", "5"]


def uncommented(path: Path) -> str:
    """``path`` without its comment lines: what is not read (profiles.yml's
    commented-out MotherDuck target names a variable of its own)."""
    return "\n".join(
        line for line in path.read_text(encoding="utf-8").splitlines() if not line.lstrip().startswith("#")
    )


def test_every_variable_the_code_names_is_a_setting():
    """A name in src/ or the dbt project that settings does not know would
    be read nowhere (or read unchecked)."""
    known = set(settings.BY_NAME) | {"AGENT_EVAL_INVOCATION_ID"}  # a global dbt's materialization defines
    files = [*(ROOT / "src").rglob("*.py"), *(ROOT / "models").rglob("*.py"), *(ROOT / "macros").rglob("*.sql")]
    files += [ROOT / "dbt_project.yml", ROOT / "profiles.yml"]
    named = {name for path in files for name in re.findall(r"AGENT_EVAL_[A-Z_]+[A-Z]", uncommented(path))}
    assert named - known == set()


def test_dbt_reads_its_variables_in_one_place_each():
    """dbt itself reads the warehouse, its memory and its threads in the
    profile and the build's date in one macro; the drops folder is not a
    dbt var."""
    files = [ROOT / "dbt_project.yml", ROOT / "profiles.yml", *(ROOT / "macros").rglob("*.sql")]
    files += [*(ROOT / "models").rglob("*.sql"), *(ROOT / "models").rglob("*.yml")]
    reads = sorted(
        (path.relative_to(ROOT).as_posix(), name)
        for path in files
        for name in re.findall(r"env_var\(\s*['\"](AGENT_EVAL_\w+)", uncommented(path))
    )
    assert reads == [
        ("macros/history.sql", "AGENT_EVAL_AS_OF"),
        ("profiles.yml", "AGENT_EVAL_DB"),
        ("profiles.yml", "AGENT_EVAL_DBT_THREADS"),
        ("profiles.yml", "AGENT_EVAL_DUCKDB_MEMORY"),
    ]
    assert not any("var('drops_dir'" in path.read_text(encoding="utf-8") for path in files)


def test_the_judge_takes_its_settings_from_the_module():
    config = judge.JudgeConfig.from_env(
        {judge.ENV_BASE_URL: " http://x/v1 ", judge.ENV_MODEL: "m", judge.ENV_BACKOFF: "0", judge.ENV_API_KEY: ""}
    )
    assert (config.base_url, config.backoff_sec, config.api_key, config.max_items) == ("http://x/v1", 0.0, None, None)
    with pytest.raises(settings.SettingError, match=r"^AGENT_EVAL_JUDGE_MAX_ITEMS='-1' must be at least 0$"):
        judge.JudgeConfig.from_env({judge.ENV_BASE_URL: "x", judge.ENV_MODEL: "m", judge.ENV_MAX_ITEMS: "-1"})


def test_the_operations_table_is_the_settings_module():
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    assert settings.markdown_table() in text, (
        "docs/operations.md's table of the variables differs from agent_eval.settings: "
        "paste `python -c 'from agent_eval import settings; print(settings.markdown_table())'`"
    )
    # and it is the only table of them
    rows = [line for line in text.splitlines() if line.startswith("| `AGENT_EVAL_")]
    assert len(rows) == len(settings.SETTINGS)


def test_the_documented_defaults_are_the_ones_in_use():
    from agent_eval import ingest, project

    default = {setting.name: setting.default for setting in settings.SETTINGS}
    assert default["AGENT_EVAL_DB"] == f"`{project.DEFAULT_DB.as_posix()}`"
    assert default["AGENT_EVAL_DROPS"] == f"`{project.DEFAULT_DROPS.as_posix()}`"
    assert default["AGENT_EVAL_REPORTS"] == f"`{project.DEFAULT_REPORTS.as_posix()}/`"
    assert default["AGENT_EVAL_MAX_RECORD_MB"] == f"`{ingest.common.DEFAULT_MAX_RECORD_MB:g}`"
    profile = (ROOT / "profiles.yml").read_text(encoding="utf-8")
    assert f"env_var('AGENT_EVAL_DUCKDB_MEMORY', '{default['AGENT_EVAL_DUCKDB_MEMORY'].strip('`')}')" in profile
    assert f"env_var('AGENT_EVAL_DB', '{default['AGENT_EVAL_DB'].strip('`')}')" in profile
    for name, value in (
        (judge.ENV_TIMEOUT, judge.DEFAULT_TIMEOUT_SEC),
        (judge.ENV_MAX_ATTEMPTS, judge.DEFAULT_MAX_ATTEMPTS),
        (judge.ENV_CONCURRENCY, judge.DEFAULT_CONCURRENCY),
        (judge.ENV_BACKOFF, judge.DEFAULT_BACKOFF_SEC),
    ):
        assert default[name] == f"{value:g}", name
