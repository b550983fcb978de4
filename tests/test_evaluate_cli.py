"""`agent-eval evaluate` as the source document (003 §5) describes it.

The end-to-end tests compute with the engagement models through the cached
evaluation plan (agent_eval.agents.engagement.evaluate_plan): dbt builds it once per project
state, in a cache under pytest's tmp folder shared by this module
(AGENT_EVAL_CACHE, never ~/.cache); the evaluations replay it without dbt.
One more plan is built, for two tests (``changed_project``): a copy of the
project whose model file changed, whose cached entry is stale (a damaged
template), so the plan of the new state is the rebuild of a damaged cache.
The others stop at input checking and run fast.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from agent_eval import cli, schemas
from agent_eval.agents.engagement import evaluate, evaluate_plan
from agent_eval.project import find_project_dir
from conftest import copy_project, exposure_parents, reads_recorded

PROJECT_DIR = find_project_dir(Path(__file__).parent)
FIXTURE_RUN = Path(__file__).parent / "fixtures" / "engagement" / "2026-11-01" / "engagement" / "run-worked"


@pytest.fixture(scope="module")
def module_plan(tmp_path_factory, evaluation_plan) -> tuple[Path, list[str]]:
    """One evaluation cache for the module, a copy of the session's, which
    holds the plan of the project's state (the evaluations replay it); and
    what the build said."""
    shared, notes = evaluation_plan
    cache = tmp_path_factory.mktemp("evaluate-cache") / "cache"
    shutil.copytree(shared, cache)
    return cache, notes


@pytest.fixture(scope="module")
def plan_cache(module_plan) -> Path:
    return module_plan[0]


@pytest.fixture(autouse=True)
def _cache_under_tmp(plan_cache, monkeypatch):
    monkeypatch.setenv("AGENT_EVAL_CACHE", str(plan_cache))


WORKED_EXPECTED = {"expected": {"likeCount": 30, "commentCount": 10}}


def act(liked: bool, commented: bool, **extra) -> str:
    return json.dumps(
        {**extra, "action": {"type": "act", "status": "ok"}, "result": {"liked": liked, "commented": commented}}
    )


def write_agent(run_dir: Path, agent: str, lines: list[str]) -> Path:
    path = run_dir / agent / "actions.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def worked_run(run_dir: Path, persona: str | None = None) -> None:
    """30 counted acts: 27 liked, 12 commented; plus one non-act and one
    non-ok line, both 'liked', which must not count.

    agent-1: 20 acts, the first 18 liked, the first 8 commented
    agent-2: 10 acts, the first 9 liked, the first 4 commented
    """
    extra = {"personaId": persona} if persona else {}
    agent1 = [act(i < 18, i < 8, **extra) for i in range(20)]
    agent1.insert(5, json.dumps({**extra, "action": {"type": "observe", "status": "ok"}, "result": {"liked": True}}))
    agent1.insert(
        9,
        json.dumps(
            {**extra, "action": {"type": "act", "status": "error"}, "result": {"liked": True, "commented": True}}
        ),
    )
    write_agent(run_dir, "agent-1", agent1)
    write_agent(run_dir, "agent-2", [act(i < 9, i < 4) for i in range(10)])


def write_json(path: Path, document) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def age(folder: Path, seconds: float) -> None:
    """Make a folder and everything in it look `seconds` old."""
    past = os.path.getmtime(folder) - seconds
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (past, past))


# ---------------------------------------------------------------------------
# End to end (dbt)
# ---------------------------------------------------------------------------


def test_worked_example_with_the_source_defaults(tmp_path, monkeypatch, capsys):
    """Exactly as the source: `cd agent; ... evaluate --expected
    ../shared/evaluation/expected.example.json` with no run option: the
    newest folder under agent/outputs, the result under
    shared/evaluation/results/<evaluationId>.json of the same project.

    likeCount    |27 - 30| = 3, relativeError 3/30 = 0.1, similarity 0.9
    commentCount |12 - 10| = 2, relativeError 2/10 = 0.2, similarity 0.8
    overall (0.9 x 0.5 + 0.8 x 0.5) / (0.5 + 0.5) = 0.85 -> close
    """
    monkeypatch.delenv("AGENT_EVAL_OUTPUTS", raising=False)
    monkeypatch.delenv("AGENT_EVAL_RESULTS", raising=False)
    outputs = tmp_path / "agent" / "outputs"
    # the newest run has the smaller name: selection is by time, not by name
    write_agent(outputs / "run-zzz-old", "agent-1", [act(True, True)])
    age(outputs / "run-zzz-old", 3600)
    worked_run(outputs / "run-aaa-new")
    write_json(tmp_path / "shared" / "evaluation" / "expected.example.json", WORKED_EXPECTED)

    monkeypatch.chdir(tmp_path / "agent")
    code = cli.main(["evaluate", "--expected", "../shared/evaluation/expected.example.json"])
    out = capsys.readouterr().out
    assert code == cli.EXIT_OK, out

    (written,) = (tmp_path / "shared" / "evaluation" / "results").glob("*.json")
    result = json.loads(written.read_text(encoding="utf-8"))
    assert schemas.result_problem(result) is None
    assert written.stem == result["evaluationId"]
    assert re.fullmatch(r"run-aaa-new-\d{8}T\d{6}Z", result["evaluationId"])
    assert result["schemaVersion"] == "1.0"
    assert result["runId"] == "run-aaa-new"
    assert result["actual"] == {
        "totalActs": 30,
        "likeCount": 27,
        "commentCount": 12,
        "likeRate": 0.9,
        "commentRate": 0.4,
        "engagementCount": 39,
    }
    assert result["lines"] == {"total": 32, "counted": 30, "notAct": 1, "notOk": 1, "rejected": 0}
    assert result["metrics"] == {
        "likeCount": {
            "expected": 30,
            "actual": 27,
            "absError": 3,
            "relativeError": 0.1,
            "similarity": 0.9,
            "weight": 0.5,
        },
        "commentCount": {
            "expected": 10,
            "actual": 12,
            "absError": 2,
            "relativeError": 0.2,
            "similarity": 0.8,
            "weight": 0.5,
        },
        "overallSimilarity": 0.85,
    }
    assert result["weighting"] == {"method": "weighted", "weightSum": 1}
    assert result["interpretation"]["band"] == "close"
    assert result["interpretation"]["label"] == "근접하지만 편차 존재"
    # no personaId / persona in the lines: one persona per agent folder
    assert sorted(result["perPersona"]) == ["agent-1", "agent-2"]
    assert result["perPersona"]["agent-1"]["actual"]["likeCount"] == 18
    assert result["perPersona"]["agent-1"]["metrics"] is None
    assert f"result: {written}" in out
    assert "overallSimilarity 0.85 (weighted) -> close" in out


def test_print_json_run_dir_weights_and_personas(tmp_path, capsys):
    """--run-dir, --output, --print-json; weights override; a persona in
    perPersona that never appears in the logs; one malformed line.

    agent-1 lines carry personaId p-a (18 liked, 8 commented of 20 acts);
    agent-2 has no persona field -> persona agent-2.
    weights likeCount 3, commentCount 1:
      run  (0.9 x 3 + 0.8 x 1) / 4 = 3.5 / 4 = 0.875 -> close
      p-a  likeCount 18 vs 20: |2| / 20 = 0.1 -> 0.9; commentCount 8 vs 8 -> 1
           (0.9 x 3 + 1 x 1) / 4 = 3.7 / 4 = 0.925 -> very_similar
      p-ghost commentCount 0 vs 2: 1 - 2/2 = 0 -> large_gap
    """
    run_dir = tmp_path / "elsewhere" / "run-77"
    worked_run(run_dir, persona="p-a")
    with (run_dir / "agent-2" / "actions.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"action": {"type": "act", "status": "ok"}, "result": {"liked": tru\n')
    expected = write_json(
        tmp_path / "expected.json",
        {
            "expected": {"likeCount": 30, "commentCount": 10},
            "perPersona": {"p-a": {"likeCount": 20, "commentCount": 8}, "p-ghost": {"commentCount": 2}},
            "weights": {"likeCount": 3, "commentCount": 1},
        },
    )
    output = tmp_path / "out" / "result.json"
    code = cli.main(
        [
            "evaluate",
            "--expected",
            str(expected),
            "--run-dir",
            str(run_dir),
            "--output",
            str(output),
            "--print-json",
            "--evaluation-id",
            "example-eval",
        ]
    )
    captured = capsys.readouterr()
    # the result is still written; the rejected line makes the exit code 3
    assert code == cli.EXIT_REJECTED
    assert "agent-2/actions.jsonl:11: invalid_json" in captured.err
    printed = json.loads(captured.out)  # stdout is the JSON and nothing else
    assert printed == json.loads(output.read_text(encoding="utf-8"))
    assert schemas.result_problem(printed) is None
    assert printed["evaluationId"] == "example-eval"
    assert printed["runId"] == "run-77"
    assert printed["lines"]["rejected"] == 1
    assert printed["metrics"]["overallSimilarity"] == 0.875
    assert printed["metrics"]["likeCount"]["weight"] == 3
    assert printed["interpretation"]["band"] == "close"
    personas = printed["perPersona"]
    assert sorted(personas) == ["agent-2", "p-a", "p-ghost"]
    assert personas["p-a"]["metrics"]["likeCount"]["similarity"] == 0.9
    assert personas["p-a"]["metrics"]["commentCount"]["similarity"] == 1
    assert personas["p-a"]["metrics"]["overallSimilarity"] == 0.925
    assert personas["p-a"]["interpretation"]["band"] == "very_similar"
    ghost = personas["p-ghost"]
    assert (ghost["inLogs"], ghost["inExpected"]) == (False, True)
    assert ghost["actual"]["totalActs"] == 0
    assert ghost["metrics"]["commentCount"] == {
        "expected": 2,
        "actual": 0,
        "absError": 2,
        "relativeError": 1,
        "similarity": 0,
        "weight": 1,
    }
    assert ghost["interpretation"]["band"] == "large_gap"
    assert personas["agent-2"]["metrics"] is None and personas["agent-2"]["inExpected"] is False


def test_a_run_whose_lines_are_all_unusable_is_empty(tmp_path, capsys):
    run_dir = tmp_path / "run-broken"
    write_agent(run_dir, "agent-1", ['{"action": ', "not json at all"])
    expected = write_json(tmp_path / "expected.json", WORKED_EXPECTED)
    code = cli.main(
        ["evaluate", "--expected", str(expected), "--run-dir", str(run_dir), "--results-dir", str(tmp_path / "results")]
    )
    err = capsys.readouterr().err
    assert code == cli.EXIT_REJECTED
    assert "empty run: no usable action line" in err
    assert "agent-1/actions.jsonl:2: invalid_json" in err
    assert not (tmp_path / "results").exists()


def test_the_result_reads_exactly_what_its_exposure_declares(tmp_path, capsys, monkeypatch):
    """The evaluate JSON's exposure (evaluate_json) lists exactly the
    relations read_result reads from the scratch warehouse; every read goes
    through agent_eval.db.fetch."""
    with reads_recorded(monkeypatch) as read:
        evaluate_fixture(capsys, tmp_path / "result.json")
    exposures = PROJECT_DIR / "models" / "marts" / "engagement" / "_engagement__exposures.yml"
    assert read == exposure_parents(exposures, "evaluate_json")


# ---------------------------------------------------------------------------
# The evaluation plan: built once per project state, replayed without dbt
# ---------------------------------------------------------------------------


def _without_event(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in ("evaluationId", "evaluatedAt")}


def evaluate_args(output: Path, *extra: str) -> list[str]:
    """`agent-eval evaluate` of the fixture run, written to ``output``."""
    return [
        "evaluate",
        "--expected",
        str(FIXTURE_RUN / "expected.json"),
        "--run-dir",
        str(FIXTURE_RUN),
        "--output",
        str(output),
        *extra,
    ]


def evaluate_fixture(capsys, output: Path, *extra: str) -> dict:
    code = cli.main(evaluate_args(output, *extra))
    err = capsys.readouterr().err
    # the fixture has one malformed line and one non-boolean 'liked'
    assert code == cli.EXIT_REJECTED, err
    return json.loads(output.read_text(encoding="utf-8"))


def test_repeated_evaluations_agree_and_give_the_worked_numbers(tmp_path, capsys):
    """The fixture run (36 lines: 30 counted acts, 27 liked, 12 commented,
    three non-act, one non-ok, two rejected; the numbers of the dbt build)
    twice: the same result but for the event fields; likeCount 0.9,
    commentCount 0.8, overall 0.85."""
    first = evaluate_fixture(capsys, tmp_path / "first.json")
    second = evaluate_fixture(capsys, tmp_path / "second.json")
    assert _without_event(first) == _without_event(second)
    assert first["actual"] == {
        "totalActs": 30,
        "likeCount": 27,
        "commentCount": 12,
        "likeRate": 0.9,
        "commentRate": 0.4,
        "engagementCount": 39,
    }
    assert first["lines"] == {"total": 36, "counted": 30, "notAct": 3, "notOk": 1, "rejected": 2}
    assert first["metrics"]["likeCount"]["similarity"] == 0.9
    assert first["metrics"]["commentCount"]["similarity"] == 0.8
    assert first["metrics"]["overallSimilarity"] == 0.85
    assert first["interpretation"]["band"] == "close"


def test_the_fast_path_does_not_import_dbt(tmp_path, capsys, plan_cache):
    evaluate_fixture(capsys, tmp_path / "warm-up.json")  # the plan exists from here on
    script = (
        "import sys\n"
        "from agent_eval import cli\n"
        f"code = cli.main(['evaluate', '--expected', {str(FIXTURE_RUN / 'expected.json')!r},"
        f" '--run-dir', {str(FIXTURE_RUN)!r}, '--output', {str(tmp_path / 'out.json')!r}])\n"
        "loaded = sorted(m for m in sys.modules if m == 'dbt' or m.startswith('dbt.'))\n"
        "print('DBT_MODULES', loaded, 'EXIT', code)\n"
    )
    env = {**os.environ, "AGENT_EVAL_CACHE": str(plan_cache)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert "DBT_MODULES [] EXIT 3" in done.stdout, done.stdout + done.stderr
    assert "building the evaluation plan" not in done.stderr
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["metrics"]["overallSimilarity"] == 0.85


def plan_folders(cache: Path) -> set[str]:
    return {p.name for p in cache.iterdir() if (p / evaluate_plan.PLAN_FILE).is_file()}


def evaluate_quietly(output: Path, *extra: str) -> tuple[int, str]:
    """`agent-eval evaluate` of the fixture run (outside a test's capsys):
    its exit code and stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(evaluate_args(output, *extra))
    return code, err.getvalue()


@pytest.fixture(scope="module")
def changed_project(tmp_path_factory, module_plan) -> dict:
    """One plan build for two tests: a copy of the project evaluates with
    the module's plan; then one of its model files changes, and the copy
    evaluates with a cache holding the module's plan as it is and, as the
    entry of the changed state, a stale one: the module's plan relabelled,
    with a mart dropped from its template. The replay on that entry fails,
    and its rebuild is the plan of the changed model."""
    plan_cache, _ = module_plan
    root = tmp_path_factory.mktemp("changed-project")
    project = copy_project(root / "project", singular_tests=True)
    original = evaluate_plan.project_key(PROJECT_DIR)
    seen: dict = {"copy_key": evaluate_plan.project_key(project), "original_key": original}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AGENT_EVAL_CACHE", str(plan_cache))
        seen["before_code"], _ = evaluate_quietly(root / "before.json", "--project-dir", str(project))
        seen["module_folders"] = plan_folders(plan_cache)

        model = project / "models" / "marts" / "engagement" / "engagement_run_scores.sql"
        model.write_text(model.read_text(encoding="utf-8") + "\n-- changed by the plan test\n", encoding="utf-8")
        key = seen["key"] = evaluate_plan.project_key(project)
        cache = seen["cache"] = root / "cache"
        for name in {original, key}:
            shutil.copytree(plan_cache / original, cache / name)
        if (plan_cache / evaluate_plan.PARSE_STATE).is_file():  # as the shared cache has it
            shutil.copy2(plan_cache / evaluate_plan.PARSE_STATE, cache / evaluate_plan.PARSE_STATE)
        plan_file = cache / key / evaluate_plan.PLAN_FILE
        plan_file.write_text(plan_file.read_text(encoding="utf-8").replace(original, key), encoding="utf-8")
        stale = evaluate_plan.load_plan(cache / key, key)  # a plan of that state, as far as the cache can tell
        with duckdb.connect(str(stale.template)) as con:
            con.execute("drop table marts.engagement_run_scores")

        env.setenv("AGENT_EVAL_CACHE", str(cache))
        seen["code"], seen["err"] = evaluate_quietly(root / "after.json", "--project-dir", str(project))
    # read by the tests (a failed evaluation writes no result: the tests say so)
    for name in ("before", "after"):
        written = root / f"{name}.json"
        seen[name] = json.loads(written.read_text(encoding="utf-8")) if written.is_file() else None
    seen["plan"] = evaluate_plan.load_plan(cache / key, key)
    return seen


def test_the_plan_is_rebuilt_when_a_model_file_changes(module_plan, changed_project):
    """The key is the project's content, not its place: a copy evaluates with
    the plan already cached; changing a model file's content makes a new plan
    (whose compiled SQL is the changed model's), beside the old one."""
    plan_cache, notes = module_plan
    seen = changed_project
    # a state with no plan cached has its plan built (the module's, first)
    assert [note for note in notes if "building the evaluation plan" in note] == notes and len(notes) == 1
    assert plan_folders(plan_cache) >= {seen["original_key"]}
    assert seen["copy_key"] == seen["original_key"]
    assert seen["before_code"] == cli.EXIT_REJECTED
    assert seen["copy_key"] in seen["module_folders"]

    key = seen["key"]
    assert key not in seen["module_folders"]
    assert seen["code"] == cli.EXIT_REJECTED, seen["err"]
    assert "rebuilding the stale evaluation plan" in seen["err"]
    assert plan_folders(seen["cache"]) == {seen["original_key"], key}
    (scores,) = [n for n in seen["plan"].nodes if n["name"] == "engagement_run_scores"]
    assert "changed by the plan test" in scores["compiled_code"]
    assert _without_event(seen["after"]) == _without_event(seen["before"])
    # only complete entries are ever visible: no build folder is left behind
    assert not [p for p in seen["cache"].iterdir() if p.name.startswith((".build-", ".stale-"))]


def test_a_damaged_cache_is_rebuilt_once(changed_project):
    """A cached template that no longer fits its plan (here: a mart dropped)
    fails the replay; the plan is rebuilt and the evaluation succeeds."""
    seen = changed_project
    assert seen["code"] == cli.EXIT_REJECTED, seen["err"]
    assert "the cached evaluation plan failed" in seen["err"] and "rebuilding the stale" in seen["err"]
    assert seen["err"].count("evaluation plan for this project state") == 1  # once
    assert seen["after"]["metrics"]["overallSimilarity"] == 0.85
    with duckdb.connect(str(seen["plan"].template), read_only=True) as con:
        assert con.execute("select count(*) from marts.engagement_run_scores").fetchone() == (0,)


def test_a_failure_on_a_fresh_plan_is_exit_1(tmp_path, monkeypatch):
    """A replay that fails on a cached plan rebuilds it once; failing again,
    on the plan just built, is an error (exit 1), not another rebuild."""
    calls = []

    def ensure_plan(project_dir, rebuild=False, notify=None):
        calls.append(rebuild)
        return evaluate_plan.Plan(tmp_path, {"unsupported": []}, built_now=rebuild)

    def run_plan(plan, work, drops_dir):
        raise duckdb.ConversionException("Could not convert string 'x' to INT32")

    monkeypatch.setattr(evaluate_plan, "ensure_plan", ensure_plan)
    monkeypatch.setattr(evaluate_plan, "run_plan", run_plan)
    with pytest.raises(evaluate.EvaluateError) as err:
        evaluate.compute_marts(PROJECT_DIR, tmp_path, notify=lambda message: None)
    assert err.value.exit_code == cli.EXIT_FAILED
    assert "Could not convert string" in str(err.value)
    assert calls == [False, True]


def test_a_plan_a_replay_cannot_compute_falls_back_to_dbt_build(tmp_path, monkeypatch):
    """A node the replay has no rule for (e.g. a snapshot, a new SQL
    materialization) makes the evaluation run dbt build, as before plans."""
    plan = evaluate_plan.Plan(tmp_path, {"unsupported": ["snapshot.agent_eval.s (snapshot, ...)"]})
    monkeypatch.setattr(evaluate_plan, "ensure_plan", lambda *a, **k: plan)
    monkeypatch.setattr(evaluate_plan, "run_plan", lambda *a, **k: pytest.fail("replayed"))
    monkeypatch.setattr(evaluate, "build_marts", lambda project_dir, work: work / "built.duckdb")
    notes = []
    assert evaluate.compute_marts(PROJECT_DIR, tmp_path, notify=notes.append) == tmp_path / "built.duckdb"
    assert "snapshot.agent_eval.s" in notes[0] and "running dbt build" in notes[0]


def test_the_cache_keeps_the_most_recently_used_entries(tmp_path):
    names = [f"{i:064x}" for i in range(evaluate_plan.KEEP_ENTRIES + 2)]
    for i, name in enumerate(names):
        (tmp_path / name).mkdir()
        (tmp_path / name / evaluate_plan.PLAN_FILE).write_text("{}", encoding="utf-8")
        os.utime(tmp_path / name, (1000 + i, 1000 + i))
    left_over = tmp_path / f".build-{'a' * 16}-x1"
    (tmp_path / "not-ours").mkdir()  # the cache root may hold other things
    for path in (left_over, tmp_path / "not-ours"):
        path.mkdir(exist_ok=True)
        os.utime(path, (0, 0))
    evaluate_plan._prune(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[2:] + ["not-ours"])


def test_the_key_covers_the_project_files(tmp_path):
    project = copy_project(tmp_path / "project", singular_tests=True)
    key = evaluate_plan.project_key(project)
    cache_dir = project / "models" / "__pycache__"
    cache_dir.mkdir()
    (cache_dir / "x.pyc").write_bytes(b"\0")
    assert evaluate_plan.project_key(project) == key  # bytecode is not the project
    seed = next((project / "seeds").rglob("*.csv"))
    seed.write_bytes(seed.read_bytes() + b"\n")
    assert evaluate_plan.project_key(project) != key
    assert evaluate_plan.cache_root() == Path(os.environ["AGENT_EVAL_CACHE"]).resolve()


# ---------------------------------------------------------------------------
# Input errors (no dbt)
# ---------------------------------------------------------------------------


@pytest.fixture
def one_run(tmp_path) -> Path:
    run_dir = tmp_path / "outputs" / "run-1"
    write_agent(run_dir, "agent-1", [act(True, False)])
    return run_dir


def run_cli(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(["evaluate", *args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"expected": {}}, "no metric in 'expected'"),
        ({"perPersona": {"p": {"likeCount": 1}}}, "no metric in 'expected'"),
        ({"expected": {"likeRate": 1.5}}, "at $.expected.likeRate: 1.5 is greater than the maximum of 1"),
        ({"expected": {"likeCount": -1}}, "at $.expected.likeCount: -1 is less than the minimum of 0"),
        ({"expected": {"likeCount": 3, "shareCount": 1}}, "'shareCount' was unexpected"),
        ({"expected": {"likeCount": 3}, "weights": {"likeCount": "high"}}, "at $.weights.likeCount"),
        ({"expected": {"likeCount": 3}, "perPersona": {"p": {}}}, "at $.perPersona.p"),
    ],
)
def test_expected_file_invalid_against_the_schema(tmp_path, capsys, one_run, document, message):
    expected = write_json(tmp_path / "expected.json", document)
    code, err = run_cli(capsys, "--expected", str(expected), "--run-dir", str(one_run))
    assert code == cli.EXIT_REJECTED
    assert f"expected file {expected}" in err and message in err


def test_expected_file_missing_or_not_json(tmp_path, capsys, one_run):
    code, err = run_cli(capsys, "--expected", str(tmp_path / "nope.json"), "--run-dir", str(one_run))
    assert code == cli.EXIT_USAGE and "nope.json does not exist" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, err = run_cli(capsys, "--expected", str(bad), "--run-dir", str(one_run))
    assert code == cli.EXIT_REJECTED and "is not valid JSON" in err


def test_no_run_folder_found(tmp_path, capsys):
    expected = write_json(tmp_path / "expected.json", WORKED_EXPECTED)
    code, err = run_cli(capsys, "--expected", str(expected), "--outputs-dir", str(tmp_path / "missing"))
    assert code == cli.EXIT_USAGE and "no run folder found" in err
    (tmp_path / "empty").mkdir()
    code, err = run_cli(capsys, "--expected", str(expected), "--outputs-dir", str(tmp_path / "empty"))
    assert code == cli.EXIT_USAGE and "no run folder found under" in err
    code, err = run_cli(
        capsys, "--expected", str(expected), "--outputs-dir", str(tmp_path / "empty"), "--run-id", "run-9"
    )
    assert code == cli.EXIT_USAGE and f"{tmp_path / 'empty' / 'run-9'} does not exist" in err
    code, err = run_cli(capsys, "--expected", str(expected), "--run-dir", str(tmp_path / "nowhere"))
    assert code == cli.EXIT_USAGE and "is not a folder" in err


def test_simulation_file_without_run_id(tmp_path, capsys, one_run):
    expected = write_json(tmp_path / "expected.json", WORKED_EXPECTED)
    outputs = str(one_run.parent)
    for document in ({"simulationId": "sim-1"}, {"runId": ""}, {"runId": 7}, ["run-1"]):
        sim = write_json(tmp_path / "sim.json", document)
        code, err = run_cli(
            capsys, "--expected", str(expected), "--outputs-dir", outputs, "--simulation-file", str(sim)
        )
        assert code == cli.EXIT_REJECTED, document
        assert f"simulation file {sim} has no runId" in err
    code, err = run_cli(
        capsys,
        "--expected",
        str(expected),
        "--outputs-dir",
        outputs,
        "--simulation-file",
        str(tmp_path / "absent.json"),
    )
    assert code == cli.EXIT_USAGE and "absent.json does not exist" in err


def test_empty_run_folder(tmp_path, capsys):
    expected = write_json(tmp_path / "expected.json", WORKED_EXPECTED)
    run_dir = tmp_path / "run-empty"
    run_dir.mkdir()
    code, err = run_cli(capsys, "--expected", str(expected), "--run-dir", str(run_dir))
    assert code == cli.EXIT_REJECTED and "empty run: no <agentId>/actions.jsonl" in err
    # actions.jsonl directly in the run folder: said so
    (run_dir / "actions.jsonl").write_text(act(True, True) + "\n", encoding="utf-8")
    code, err = run_cli(capsys, "--expected", str(expected), "--run-dir", str(run_dir))
    assert code == cli.EXIT_REJECTED and "must sit in an <agentId>/ folder" in err


def test_run_options_are_mutually_exclusive(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["evaluate", "--expected", "e.json", "--run-id", "a", "--run-dir", "b"])
    assert exited.value.code == cli.EXIT_USAGE
    assert "not allowed with argument" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Which run: explicit options win over the newest folder
# ---------------------------------------------------------------------------


@pytest.fixture
def outputs(tmp_path) -> Path:
    """run-a (old), run-b (newest), and a hidden folder (never a run)."""
    root = tmp_path / "outputs"
    for name in ("run-a", "run-b"):
        write_agent(root / name, "agent-1", [act(True, False)])
    age(root / "run-a", 3600)
    (root / ".cache").mkdir()
    return root


def test_newest_run_folder_when_no_option(outputs):
    assert evaluate.resolve_run_dir(outputs) == outputs / "run-b"


def test_newest_means_latest_activity_inside_the_folder(outputs):
    # run-a's folder is old, but an agent wrote to its actions.jsonl just now
    actions = outputs / "run-a" / "agent-1" / "actions.jsonl"
    newer = os.path.getmtime(outputs / "run-b") + 60
    os.utime(actions, (newer, newer))
    assert evaluate.resolve_run_dir(outputs) == outputs / "run-a"


def test_newest_ties_break_by_name(outputs):
    stamp = os.path.getmtime(outputs / "run-b")
    for path in [*(outputs / "run-a").rglob("*"), outputs / "run-a"]:
        os.utime(path, (stamp, stamp))
    for path in [*(outputs / "run-b").rglob("*"), outputs / "run-b"]:
        os.utime(path, (stamp, stamp))
    assert evaluate.resolve_run_dir(outputs) == outputs / "run-b"


def test_explicit_options_win_over_the_newest_folder(tmp_path, outputs):
    assert evaluate.resolve_run_dir(outputs, run_id="run-a") == outputs / "run-a"
    other = tmp_path / "other" / "run-x"
    other.mkdir(parents=True)
    assert evaluate.resolve_run_dir(outputs, run_dir=str(other)) == other
    sim = write_json(tmp_path / "shared" / "simulation" / "sim-1.json", {"simulationId": "sim-1", "runId": "run-a"})
    assert evaluate.resolve_run_dir(outputs, simulation_file=str(sim)) == outputs / "run-a"
    with pytest.raises(evaluate.EvaluateError) as err:
        evaluate.resolve_run_dir(outputs, run_id="run-a", run_dir=str(other))
    assert err.value.exit_code == cli.EXIT_USAGE


def test_default_folders_hang_from_the_project_holding_agent_outputs(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENT_EVAL_OUTPUTS", raising=False)
    monkeypatch.delenv("AGENT_EVAL_RESULTS", raising=False)
    # no agent/outputs anywhere up: relative to the working directory
    monkeypatch.chdir(tmp_path)
    assert evaluate.default_dir("AGENT_EVAL_OUTPUTS", evaluate.DEFAULT_OUTPUTS) == tmp_path / "agent" / "outputs"
    # from the project root and from agent/ (the source's `cd agent`), the same folders
    (tmp_path / "agent" / "outputs").mkdir(parents=True)
    for where in (tmp_path, tmp_path / "agent", tmp_path / "agent" / "outputs"):
        monkeypatch.chdir(where)
        assert evaluate.default_dir("AGENT_EVAL_OUTPUTS", evaluate.DEFAULT_OUTPUTS) == tmp_path / "agent" / "outputs"
        assert (
            evaluate.default_dir("AGENT_EVAL_RESULTS", evaluate.DEFAULT_RESULTS)
            == tmp_path / "shared" / "evaluation" / "results"
        )
    # environment variables win (relative to the working directory)
    monkeypatch.setenv("AGENT_EVAL_OUTPUTS", "runs")
    monkeypatch.setenv("AGENT_EVAL_RESULTS", "/tmp/results-here")
    assert evaluate.default_dir("AGENT_EVAL_OUTPUTS", evaluate.DEFAULT_OUTPUTS) == Path.cwd() / "runs"
    assert evaluate.default_dir("AGENT_EVAL_RESULTS", evaluate.DEFAULT_RESULTS) == Path("/tmp/results-here")
