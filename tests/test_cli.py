"""The command line a newcomer reads (issue 17.6): every command offers only
the options it uses, `--help` lists the exit codes, `--version` answers, and
`demo --help` names the demo's own defaults."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from agent_eval import cli


def help_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        cli.main([*argv, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(
    "command, absent",
    [
        ("report", ("--drops", "--published")),
        ("gates", ("--drops", "--published")),
        ("export", ("--drops", "--published")),
        ("judge", ("--drops",)),
        ("withdraw", ("--reports", "--published")),
        ("serve", ("--drops", "--reports")),
        ("publish", ("--drops", "--reports")),
    ],
)
def test_commands_offer_only_the_options_they_use(capsys, command, absent):
    text = help_text(capsys, command)
    assert "--db" in text
    for option in absent:
        assert option not in text, (command, option)


def test_build_and_demo_help_list_the_exit_codes_and_demo_its_defaults(capsys):
    for command in ("build", "demo"):
        text = help_text(capsys, command)
        assert "Exit codes" in text and "4  built and published, but a quality gate failed" in text
    demo = help_text(capsys, "demo")
    assert "warehouse/demo.duckdb" in demo and "$AGENT_EVAL_DB" not in demo
    assert "Exit codes" in help_text(capsys)


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"agent-eval {version('agent-eval-warehouse')}"
