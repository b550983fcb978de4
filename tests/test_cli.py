"""The command line a newcomer reads: every command offers only
the options it uses, `--help` lists the exit codes, `--version` answers, and
`demo --help` names the demo's own defaults."""

from __future__ import annotations

import io
import json
import re
from importlib.metadata import version

import duckdb
import pytest

from agent_eval import cli, progress, runner


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


# ---------- a build a person can read: one line per stage (agent_eval.progress)


def dbt_event(name: str, msg: str = "", level: str = "info", **data: object) -> str:
    """One line of dbt's JSON log (`--log-format json`), in the shape dbt
    1.11 writes: {"data": {...}, "info": {"name", "msg", "level", "ts"}}."""
    info = {"name": name, "msg": msg, "level": level, "ts": "2026-11-26T13:15:05.264635Z"}
    return json.dumps({"data": data, "info": info})


def node_event(resource_type: str, path: str, status: str, uid: str, total: int = 6, result: str = "") -> str:
    """A node's start (status "started") or end, as dbt reports it."""
    node = {"resource_type": resource_type, "node_path": path, "node_status": status, "unique_id": uid}
    node["node_name"] = uid.split(".")[-1]
    name = "LogStartLine" if status == "started" else "LogModelResult"
    return dbt_event(name, f"\x1b[32m{status}\x1b[0m {uid}", node_info=node, total=total, status=result)


# the nodes of a small build: a loader and a seed (load), a staging model
# (score), a history mart (history), a data test (gates), an exposure (none)
NODES = [
    ("model", "raw/common/raw_drop_files.py", "model.agent_eval.raw_drop_files", "success", ""),
    ("seed", "common/latency_rubric.csv", "seed.agent_eval.latency_rubric", "success", "REUSED"),
    ("model", "staging/resume_agent/stg_x.sql", "model.agent_eval.stg_x", "success", ""),
    ("test", "assert_no_rejected_input.sql", "test.agent_eval.assert_no_rejected_input", "error", ""),
    ("model", "marts/history/history_set_metrics.sql", "model.agent_eval.history_set_metrics", "success", ""),
    ("exposure", "marts/history/_exposures.yml", "exposure.agent_eval.morning_summary", "no-op", ""),
]
TOTALS = ({"load": 2, "score": 1, "history": 1, "gates": 1}, 6)  # 5 nodes + 1 exposure = dbt's 6


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run_stages(shown: progress.BuildProgress, clock: Clock) -> None:
    """The stages of one build: dbt's events (one second per node), then
    the Python steps (publish 2 s, no reports, gates 1 s)."""
    shown.start()
    shown.dbt_line(dbt_event("MainReportVersion", "Running with dbt=1.11.16"))
    for kind, path, uid, status, result in NODES:
        shown.dbt_line(node_event(kind, path, "started", uid))
        clock.now += 1
        shown.dbt_line(node_event(kind, path, status, uid, result=result))
    shown.dbt_line(dbt_event("RunResultError", "\x1b[31m  Runtime Error in test x\x1b[0m", level="error"))
    # a node's own error-level lines are not dbt's account of the failure
    shown.dbt_line(dbt_event("LogSkipBecauseError", "SKIP relation y due to ephemeral model status", level="error"))
    shown.dbt_line("Traceback (most recent call last): not an event")
    shown.dbt_done(ok=True)
    shown.begin("publish")
    clock.now += 2
    shown.finish("publish", "3 tables")
    shown.skip("reports", "--no-reports")
    shown.begin("gates")
    clock.now += 1
    shown.finish("gates", "quality gates 1 pass, 0 fail")
    shown.close()


def test_the_build_shows_one_line_per_stage_with_counts_and_times_and_logs_dbts_lines(tmp_path):
    clock, out = Clock(), io.StringIO()
    log = tmp_path / "logs" / "build.log"
    shown = progress.BuildProgress(out, log, live=False, totals=lambda: TOTALS, clock=clock)
    run_stages(shown, clock)
    # load: from dbt's start (t=0) to its second node's end (t=2); score ends
    # at t=3 (started at 2); history runs from 4 to 5; gates: its test from
    # 3 to 4, then the quality gates 1 s (t=7 to 8)
    assert out.getvalue().splitlines() == [
        "  load     done        2.0s  2/2 nodes (1 reused)",
        "  score    done        1.0s  1/1 nodes",
        "  history  done        1.0s  1/1 nodes",
        "  publish  done        2.0s  3 tables",
        "  reports  skipped           --no-reports",
        "  gates    done        2.0s  1/1 tests (1 failed: assert_no_rejected_input); quality gates 1 pass, 0 fail",
    ]
    # dbt's lines as its text log prints them: local time, the message, no colour
    text = log.read_text(encoding="utf-8").splitlines()
    assert re.fullmatch(r"\d\d:\d\d:\d\d  Running with dbt=1\.11\.16", text[0])
    assert text[-1] == "Traceback (most recent call last): not an event"
    assert not any("\x1b" in line for line in text)
    assert shown.errors == ["  Runtime Error in test x"]  # for the failure's message


def test_a_stage_ends_when_its_nodes_have_ended_not_when_dbt_does(tmp_path):
    """Plain lines come as stages end: load's line is out before dbt runs the rest."""
    clock, out = Clock(), io.StringIO()
    shown = progress.BuildProgress(out, tmp_path / "build.log", live=False, totals=lambda: TOTALS, clock=clock)
    shown.start()
    for kind, path, uid, status, result in NODES[:2]:
        shown.dbt_line(node_event(kind, path, "started", uid))
        shown.dbt_line(node_event(kind, path, status, uid, result=result))
    assert out.getvalue().split()[:2] == ["load", "done"]
    # totals that do not describe dbt's selection (its total differs) are not trusted:
    # a stage then ends with dbt; the manifest is read once, at the first node
    other, reads = io.StringIO(), []
    shown = progress.BuildProgress(
        other, tmp_path / "build2.log", live=False, totals=lambda: reads.append(1) or (TOTALS[0], 99), clock=clock
    )
    shown.start()
    for kind, path, uid, status, result in NODES[:2]:
        shown.dbt_line(node_event(kind, path, "started", uid))
        shown.dbt_line(node_event(kind, path, status, uid, result=result))
    assert reads == [1]
    assert other.getvalue() == ""
    shown.dbt_done(ok=False)
    assert other.getvalue().split()[:4] == ["load", "done", "0.0s", "2"]
    shown.close()


def test_on_a_terminal_the_stage_lines_are_redrawn_in_place(tmp_path):
    clock, out = Clock(), io.StringIO()
    shown = progress.BuildProgress(out, tmp_path / "build.log", live=True, totals=lambda: TOTALS, clock=clock)
    run_stages(shown, clock)
    screen = out.getvalue()
    assert "\x1b[6F" in screen  # back up over the six stage lines
    last = screen.rsplit("\x1b[6F", 1)[1].split("\n")[:6]
    assert [line.removeprefix("\x1b[2K").split()[:2] for line in last] == [
        [stage, "skipped" if stage == "reports" else "done"] for stage in progress.STAGES
    ]


def test_verbose_shows_dbts_lines_as_they_come(tmp_path):
    clock, out = Clock(), io.StringIO()
    shown = progress.BuildProgress(
        out, tmp_path / "build.log", live=False, verbose=True, totals=lambda: TOTALS, clock=clock
    )
    run_stages(shown, clock)
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"\d\d:\d\d:\d\d  Running with dbt=1\.11\.16", lines[0])
    assert "Traceback (most recent call last): not an event" in lines
    assert [line.split()[0] for line in lines if line.startswith("  ") and line.split()[0] in progress.STAGES] == list(
        progress.STAGES
    )


@pytest.mark.parametrize("command", ["build", "demo"])
def test_verbose_reaches_the_build(monkeypatch, tmp_path, command):
    seen = []
    monkeypatch.setattr(cli, "cmd_build", lambda paths, *args, **kwargs: seen.append(kwargs) or cli.EXIT_OK)
    common = ["--db", str(tmp_path / "w.duckdb"), "--reports", str(tmp_path / "r")]
    assert cli.main([command, *common]) == cli.EXIT_OK
    assert cli.main([command, "--verbose", *common]) == cli.EXIT_OK
    assert [kwargs.get("verbose") for kwargs in seen] == [False, True]


@pytest.mark.parametrize(
    "resource_type, path, stage",
    [
        ("model", "models/raw/resume_agent/raw_resume_agent_rows.py", "load"),
        ("model", "raw/common/raw_drop_files.py", "load"),  # an event's node_path
        ("seed", "seeds/common/latency_rubric.csv", "load"),
        ("model", "models/staging/recruit_agent/stg_recruit_agent__items.sql", "score"),
        ("model", "models/intermediate/summary/int_summary__x.sql", "score"),
        ("model", "models/marts/resume_agent/resume_set_scores.sql", "score"),
        ("model", "models/marts/ops/load_log.sql", "score"),
        ("model", "models/intermediate/history/int_history__sets.sql", "history"),
        ("model", "marts/history/history_gate_results.sql", "history"),
        ("test", "not_null_x_y.sql", "gates"),
        ("unit_test", "models/marts/x.yml", "gates"),
        ("exposure", "models/marts/history/_exposures.yml", None),
        ("operation", "hooks/agent_eval-on-run-end-0.sql", None),
    ],
)
def test_nodes_map_to_stages_by_their_folder(resource_type, path, stage):
    assert progress.stage_of(resource_type, path) == stage


# ---------- the command line explains itself

COMMANDS = (
    "build",
    "report",
    "demo",
    "samples",
    "gates",
    "export",
    "compare",
    "withdraw",
    "publish",
    "serve",
    "evaluate",
    "judge",
)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_bad_option_prints_the_usage_of_its_command(capsys, command):
    required = {
        "samples": ["--out", "x"],
        "withdraw": ["x", "--reason", "y"],
        "evaluate": ["--expected", "x"],
        "compare": ["a", "b"],
    }
    with pytest.raises(SystemExit) as done:
        cli.main([command, *required.get(command, []), "--bogus"])
    assert done.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"usage: agent-eval {command} "), err
    assert err.rstrip().endswith(f"agent-eval {command}: error: unrecognized arguments: --bogus"), err


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_lists_its_exit_codes(capsys, command):
    text = help_text(capsys, command)
    codes = text[text.index("Exit codes") :]
    assert re.search(r"^  0  ", codes, flags=re.M), codes
    assert re.search(r"^  2  usage error", codes, flags=re.M), codes


def test_every_command_has_a_one_line_description_in_the_top_level_help(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps to the terminal's width
    lines = help_text(capsys).splitlines()
    first = next(i for i, line in enumerate(lines) if line.split()[:1] == [COMMANDS[0]])
    listed = lines[first : first + len(COMMANDS)]
    # one line each, in order: the command, then its description on the same line
    assert [line.split()[0] for line in listed] == list(COMMANDS), listed
    assert all(len(line.split()) >= 3 for line in listed), listed
    assert lines[first + len(COMMANDS)].strip() == "", lines[first + len(COMMANDS)]  # no wrapped tail


@pytest.fixture
def no_dbt(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("dbt was started")

    monkeypatch.setattr(runner, "run_dbt", refuse)


def unwritable_cases(tmp_path):
    """(command line, the path its message must name): a folder the OS will not
    create (/proc refuses everyone, root included), a file where a folder
    belongs, a folder where a file belongs."""
    drops = tmp_path / "drops"
    drops.mkdir()
    a_file = tmp_path / "a_file"
    a_file.write_text("in the way", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    (tmp_path / "published").mkdir()
    for warehouse in (db, tmp_path / "published" / db.name):  # empty: the paths are checked first
        duckdb.connect(str(warehouse)).close()
    return [
        (["build", "--drops", str(drops), "--db", str(db), "--reports", "/proc/x"], "/proc/x"),
        (["build", "--drops", str(drops), "--db", str(a_file / "x.duckdb")], str(a_file / "x.duckdb")),
        (["demo", "--db", str(a_file / "demo.duckdb")], str(a_file / "demo.duckdb")),
        (["demo", "--db", "/proc/demo.duckdb", "--reports", str(tmp_path / "r")], "/proc/demo.duckdb"),
        (["export", "--db", str(db), "--out", str(tmp_path)], str(tmp_path)),
        (["export", "--format", "every-eval-ever", "--db", str(db), "--out", str(a_file)], str(a_file)),
        (["gates", "--db", str(db), "--junit", str(tmp_path)], str(tmp_path)),
        (["report", "--db", str(db), "--reports", "/proc/x"], "/proc/x"),
        (["samples", "--out", "/proc/x"], "/proc/x"),
    ]


def test_an_output_path_that_cannot_be_written_is_one_line_naming_it(tmp_path, capsys, no_dbt):
    for argv, path in unwritable_cases(tmp_path):
        capsys.readouterr()
        assert cli.main(argv) == cli.EXIT_USAGE, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err and "Errno" not in err, (argv, err)
        assert err.startswith(f"agent-eval: cannot write {path}: "), (argv, err)


def test_every_hint_to_build_first_names_the_same_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AGENT_EVAL_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MODEL", "m")
    none = str(tmp_path / "none.duckdb")
    for argv in (
        ["report", "--db", none],
        ["report", "--latest", "--db", none],
        ["gates", "--db", none],
        ["export", "--db", none],
        ["export", "--format", "every-eval-ever", "--db", none],
        ["publish", "--db", none],
        ["judge", "--db", none],
        ["withdraw", "2026-11-01", "--reason", "x", "--db", none],
    ):
        assert cli.main(argv) == cli.EXIT_USAGE, argv
        err = capsys.readouterr().err
        assert "run `agent-eval build` first" in err, (argv, err)
        assert len(re.findall(r"run `[^`]+`", err)) == 1, err


@pytest.mark.dbt
def test_report_renders_the_morning_page_as_a_build_does(built, tmp_path, capsys):
    wh, _ = built("basic")
    reports = tmp_path / "again"
    assert cli.main(["report", "--db", str(wh.paths.db_path), "--reports", str(reports)]) == cli.EXIT_OK
    page = reports / "morning" / "2026-11-01.md"  # the newest (only) drop of tests/fixtures/basic
    assert page.is_file()
    assert str(page) in capsys.readouterr().out.splitlines()
    # the page a build wrote, from the same marts
    assert page.read_text(encoding="utf-8") == (wh.paths.reports_dir / "morning" / "2026-11-01.md").read_text(
        encoding="utf-8"
    )


def test_dbts_errors_in_a_failure_message_are_cut_to_what_says_what_and_where(tmp_path):
    shown = progress.BuildProgress(io.StringIO(), tmp_path / "build.log", live=False)
    traceback = ["Runtime Error in model m (models/raw/m.py)", "  Python model failed:", "  Traceback (most recent"]
    traceback += [f"    frame {i}" for i in range(20)] + ["  NotADirectoryError: [Errno 20] Not a directory: 'x'"]
    shown.dbt_line(dbt_event("RunResultError", "\n".join(traceback), level="error"))
    shown.dbt_line(dbt_event("MainEncounteredError", "Encountered an error:\nParsing Error", level="error"))
    assert shown.error_lines(limit=40) == [
        *traceback[:3],
        "  ...",
        "    frame 19",
        "  NotADirectoryError: [Errno 20] Not a directory: 'x'",
        "Encountered an error:",
        "Parsing Error",
    ]
    assert shown.error_lines(limit=2) == [*traceback[:2], f"... (6 more lines in {tmp_path / 'build.log'})"]


def test_the_summary_lists_a_few_ignored_files_then_a_count():
    """The build's summary fits a screen: a night of many companion files
    (each read with its aggregate) lists a few, then how many more and
    where they all are."""
    ignored = [(f"2026-11-02/every_eval_ever/run{i}_samples.jsonl", "its companion file") for i in range(10)]
    text = runner.format_summary(runner.BuildSummary(ignored_files=ignored))
    listed = [line for line in text.splitlines() if line.startswith("ignored file ")]
    assert listed == [f"ignored file {path}: {reason}" for path, reason in ignored[: runner.MAX_LISTED]]
    assert f"... and {10 - runner.MAX_LISTED} more ignored (table ops.load_log)" in text


def test_an_agents_commands_come_through_the_registry(tmp_path, monkeypatch, capsys):
    """An agent's commands part adds its subcommands and export formats;
    the CLI lends it what it needs (command_kit) and names no agent. With
    no project found, the shared commands alone are offered."""
    from agent_eval import registry

    package = tmp_path / "hello_agent"
    package.mkdir()
    (package / "__init__.py").write_text("KINDS = ()\n", encoding="utf-8")
    (package / "commands.py").write_text(
        "def add_commands(sub, kit):\n"
        "    cmd = kit.command(sub, 'hello', 'say hello', 'Exit codes:\\n  0  said')\n"
        "    cmd.add_argument('--name', required=True)\n"
        "    cmd.set_defaults(run=lambda args: print(f'hello {args.name}') or kit.EXIT_REJECTED)\n"
        "\n"
        "def write_txt(kit, paths, out, sets):\n"
        "    print(f'txt {out} {sets}')\n"
        "    return kit.EXIT_OK\n"
        "\n"
        "EXPORT_FORMATS = {'txt': write_txt}\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = registry.Agent("hello_agent", "hello", "marts.hello_sets", "hello", "hello_agent")
    monkeypatch.setattr(registry, "registered", lambda project_dir=None: (agent,))
    assert re.search(r"^    hello +say hello$", help_text(capsys), flags=re.M)
    assert cli.main(["hello", "--name", "you"]) == cli.EXIT_REJECTED
    assert capsys.readouterr().out == "hello you\n"
    assert "--format {txt,every-eval-ever}" in help_text(capsys, "export")
    assert cli.main(["export", "--out", "x", "a"]) == cli.EXIT_OK  # the first format is the default
    assert capsys.readouterr().out == "txt x ['a']\n"

    def no_project(project_dir=None):
        raise FileNotFoundError("cannot find the agent_eval dbt project")

    monkeypatch.setattr(registry, "registered", no_project)
    text = help_text(capsys)
    assert "    build " in text and "hello" not in text and "evaluate" not in text
