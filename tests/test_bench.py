"""The benchmark command, at a tiny size, so it cannot rot.

Asserts only that every figure, every target row and the scale curve are
produced (and that the marts agreed with the floor query, which the script
checks itself) - never a timing. The run is a smoke run (`--smoke`): the
builds of the generated drops after the full build select the resume agent's
lineage, and the night cost's history is 3 run folders, its own reference,
timed once for both sizes. It starts from the session's demo warehouse
(`--smoke-from`), the sample drops built already: its first plain
`dbt build` is the night with nothing new on a copy of it, and its one
`agent-eval demo` starts from its parse state, so neither builds the samples
again. Its `agent-eval evaluate` runs on a copy of the session's evaluation
plan (`--smoke-evaluate-cache`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECT_DIR

FIGURES = (
    "floor",
    "full",
    "incremental",
    "unchanged",
    "small",
    "empty",
    "plain_first",
    "plain",
    "report",
    "report_unchanged",
    "evaluate_cold",
    "evaluate",
    "demo_cold",
    "demo",
    "inspect_floor",
    "inspect_import",
    "promptfoo_json_floor",
    "promptfoo_json_import",
    "promptfoo_json_no_file",
    "promptfoo_jsonl_floor",
    "promptfoo_jsonl_import",
    "promptfoo_jsonl_no_file",
    "night_first_small",
    "night_unchanged_small",
    "night_first_large",
    "night_unchanged_large",
)
BUILDS = (
    "full",
    "incremental",
    "unchanged",
    "small",
    "empty",
    "plain_first",
    "plain",
    "demo_cold",
    "demo",
    "scale 120",
    "night_unchanged_small",
    "night_unchanged_large",
)
TARGETS = (
    *("1a", "1b", "2a", "2b", "3", "3m", "4", "5", "v1", "v2", "7m", "7l"),
    *("8", "8m", "9", "9m", "9l", "9lm", "c1", "c2", "c3", "7n", "7r"),
)


@pytest.mark.dbt
def test_bench_smoke_run_produces_every_figure(tmp_path, demo_warehouse, evaluation_plan, empty_project):
    out = tmp_path / "BENCHMARKS.md"
    completed = subprocess.run(
        [
            sys.executable,
            str(PROJECT_DIR / "scripts" / "bench.py"),
            "--rows",
            "60",
            "--incremental-rows",
            "9",
            "--runs",
            "1",
            "--scale",
            "60,120",
            "--scale-runs",
            "1",
            "--inspect",
            "300",
            "--promptfoo",
            "400",
            "--compare-items",
            "3000",
            "--night-cost",
            "10",
            "--smoke",
            "--smoke-from",
            str(demo_warehouse.root),
            "--smoke-evaluate-cache",
            str(evaluation_plan[0]),
            "--smoke-empty-project",
            str(empty_project()),
            "--work",
            str(tmp_path / "work"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
        # the commands as a user runs them: dbt's default threads
        env={k: v for k, v in os.environ.items() if k != "AGENT_EVAL_DBT_THREADS"},
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["parameters"]["rows"] == 60 and data["parameters"]["incremental_rows"] == 9
    assert set(data["figures"]) == {*FIGURES, "scale 120"}
    for name in FIGURES:
        figure = data["figures"][name]
        assert figure["runs"] == 1
        assert figure["wall_s"] > 0 and figure["cpu_s"] > 0 and figure["peak_rss_mib"] > 0, name
    assert set(data["ratios"]) >= {"full_over_floor", "incremental_over_empty", "full_peak_rss_mib"}
    # the viewer's server times on the full build's warehouse
    viewer = data["viewer"]
    assert viewer["n_items_requests"] == 50
    assert 0 < viewer["items_p50_ms"] <= viewer["items_p95_ms"] <= viewer["items_max_ms"]
    assert viewer["overview_p95_ms"] > 0 and viewer["item_page_max_ms"] > 0
    # the Inspect log's import: all its sample records in raw history
    assert data["inspect"]["samples"] == 300 and data["inspect"]["floor"]["samples"] == 300
    assert {t["key"] for t in data["targets"]} >= {"8", "8m"}
    # the night cost: 10 files are 3 run folders of 3, their own reference: built twice, once
    assert (data["night_cost"]["large_runs"], data["night_cost"]["small_runs"]) == (3, 3)
    assert data["night_cost"]["large_first_reports_written"] == 3
    for name in ("night_first", "night_unchanged"):
        assert data["all_runs"][f"{name}_large"] == data["all_runs"][f"{name}_small"]
    # the promptfoo outputs' import: every result in raw history, .json and .jsonl
    assert data["promptfoo"]["results"] == 400 and data["promptfoo"]["jsonl_bytes"] > 0
    # the compare: two sets of 3,000 items and a grid of five of 300, CLI and page
    compare = data["compare"]
    assert (compare["n_items"], compare["n_grid_items"], compare["n_grid_sets"]) == (3000, 300, 5)
    assert all(compare[k] > 0 for k in ("cli_s", "page_s", "grid_cli_s", "grid_page_s"))
    # the floor's per-round figures: 3 rounds of 20 rows
    assert [row[:2] for row in data["floor_result"]] == [["1/1", 20], ["2/1", 20], ["3/1", 20]]
    # every build's nodes, counted from its run_results.json
    for name in BUILDS:
        outcomes = data["nodes"][name]["outcomes"]
        assert sum(outcomes.get("executed", {}).values()) + sum(outcomes.get("reused", {}).values()) > 0, name
    # the whole project once for the generated drops (the full build), their later builds a part of it
    assert data["parameters"]["smoke"] and data["parameters"]["smoke_from"] == str(demo_warehouse.root)
    # from the demo warehouse: the first plain build and the first demo are the second ones, measured once
    # and from the session's evaluation plan: the cold evaluate is the warm one;
    # the promptfoo import without a file is one invocation for both suffixes
    assert data["parameters"]["smoke_evaluate_cache"] == str(evaluation_plan[0])
    assert data["parameters"]["smoke_empty_project"] == str(empty_project())
    for first, again in (
        ("plain_first", "plain"),
        ("demo_cold", "demo"),
        ("evaluate_cold", "evaluate"),
        ("promptfoo_jsonl_no_file", "promptfoo_json_no_file"),
    ):
        assert data["all_runs"][first] == data["all_runs"][again]
        assert data["nodes"].get(first) == data["nodes"].get(again)
    executed = {name: sum(data["nodes"][name]["outcomes"]["executed"].values()) for name in ("full", "small")}
    assert executed["small"] < executed["full"]
    # the scale curve: 60 rows reuses the full build, 120 rows is generated and built
    assert data["scale"]["runs"] == 1
    points = data["scale"]["points"]
    assert [p["rows"] for p in points] == [60, 120]
    assert all(p["wall_s"] > 0 and p["peak_rss_mib"] > 0 and "marginal_per_million_s" in p for p in points)
    text = out.read_text()
    # every target, measured, with its verdict, in the markdown
    assert [t["key"] for t in data["targets"]] == list(TARGETS)
    for target in data["targets"]:
        assert isinstance(target["holds"], bool), target
        verdict = "holds" if target["holds"] else "**does not hold**"
        assert f"| {target['label']} | {target['measured']} | {verdict} |" in text
    for heading in (
        "| measurement |",
        "## Targets",
        "## Nodes executed and reused",
        "## Where the time goes",
        "## Scale curve",
        "| 120 |",
        "make bench",
    ):
        assert heading in text


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_script", PROJECT_DIR / "scripts" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


DBT_FAILURE_LOG = """\
\x1b[0m06:26:00  90 of 119 ERROR creating sql incremental model marts.resume_item_scores .. [\x1b[31mERROR\x1b[0m in 57.85s]
\x1b[0m06:26:00  \x1b[31mFailure in model resume_item_scores (models/marts/resume_agent/resume_item_scores.sql)\x1b[0m
\x1b[0m06:26:00    Runtime Error in model resume_item_scores (models/marts/resume_agent/resume_item_scores.sql)
  Out of Memory Error: failed to pin block of size 256.0 KiB (953.5 MiB/953.6 MiB used)
\x1b[0m06:26:00  Done. PASS=94 WARN=0 ERROR=1 SKIP=24 NO-OP=3 TOTAL=122
"""


def test_a_scale_point_that_fails_is_reported_with_its_error_and_fails_both_targets():
    bench = load_bench()
    error = bench.failure_of(DBT_FAILURE_LOG)
    assert error == (
        "Failure in model resume_item_scores (models/marts/resume_agent/resume_item_scores.sql)"
        " - Out of Memory Error: failed to pin block of size 256.0 KiB (953.5 MiB/953.6 MiB used)"
    )
    points = [
        {"rows": 1_000_000, "wall_s": 30.0, "cpu_s": 50.0, "peak_rss_mib": 1200.0},
        {"rows": 3_000_000, "wall_s": 80.0, "cpu_s": 150.0, "peak_rss_mib": 1300.0},
        {"rows": 10_000_000, "wall_s": 290.0, "cpu_s": 500.0, "peak_rss_mib": 1400.0},
    ]
    curve = bench.scale_curve(points, 10.0, ("1GB", 953.7))
    # marginals: (30 - 10) / 1 = 20 from the build with no file (not judged),
    # then (80 - 30) / 2 = 25 and (290 - 80) / 7 = 30 s per million: 1.2 x
    assert [p["marginal_per_million_s"] for p in curve["points"]] == pytest.approx([20, 25, 30])
    assert curve["marginal_spread"] == pytest.approx(1.2)
    assert curve["marginal_spread_from_zero"] == pytest.approx(1.5)
    ok = {t.key: t for t in bench.scale_targets({**curve, "runs": 1, "failed": []})}
    assert ok["7m"].holds and ok["7l"].holds
    assert ok["7l"].measured == "1.20 × (with the step from 0 rows: 1.50 ×)"
    # 10M rows at 360 s: (360 - 80) / 7 = 40 s per million, 1.6 x: not linear
    bent = bench.scale_curve([*points[:2], {**points[2], "wall_s": 360.0}], 10.0, ("1GB", 953.7))
    assert bent["marginal_spread"] == pytest.approx(1.6)
    assert not {t.key: t for t in bench.scale_targets({**bent, "runs": 1, "failed": []})}["7l"].holds
    failed = {
        **curve,
        "runs": 1,
        "failed": [{"rows": 10_000_000, "error": error, "wall_s": 160.0, "cpu_s": 200.0, "peak_rss_mib": 1500.0}],
    }
    targets = {t.key: t for t in bench.scale_targets(failed)}
    assert not targets["7m"].holds and not targets["7l"].holds
    for key in ("7m", "7l"):
        assert "the build of 10,000,000 rows FAILED: Failure in model resume_item_scores" in targets[key].measured


def test_the_night_cost_targets_compare_the_night_with_history_to_the_night_with_100_files():
    bench = load_bench()
    figures = {
        "night_unchanged_large": {"wall_s": 30.0},
        "night_unchanged_small": {"wall_s": 20.0},
        "night_first_large": {"wall_s": 900.0},
        "night_first_small": {"wall_s": 60.0},
    }
    night = {
        "files": 10_000,
        "small_files": 100,
        "large_runs": 3_333,
        "large_first_render_s": 121.0,
        "large_first_reports_written": 60,
    }
    found = {t.key: t for t in bench.night_cost_targets({"night_cost": night, "figures": figures})}
    # 30 s / 20 s = 1.5: at the limit, which holds
    assert found["7n"].holds and found["7n"].measured.startswith("1.50 ×")
    assert "10,000 files" in found["7n"].label
    # 121 s of rendering is over the 2 minutes
    assert found["7r"].holds is False and "3,333 sets" in found["7r"].measured
    skipped = {t.key: t for t in bench.night_cost_targets({"night_cost": None, "figures": {}})}
    assert skipped["7n"].holds is None and "--night-cost 0" in skipped["7n"].measured
    assert skipped["7r"].holds is None


def test_a_smoke_run_changes_no_build_of_the_benchmark_and_writes_elsewhere(tmp_path):
    bench = load_bench()
    run = tmp_path / "run"

    def with_smoke(smoke: bool):
        return bench.Bench(tmp_path, run / "drops", run / "warehouse.duckdb", {}, {}, {}, {}, smoke=smoke)

    # `make bench` builds the generated drops with the whole project every time
    assert with_smoke(False).next_build is bench.BUILD
    # a smoke run's later builds: the same command, on the lineage of the marts its checks read, with
    # only the data tests of that lineage (a test of a table it leaves out would fail in an empty warehouse)
    assert with_smoke(True).next_build == [
        *bench.BUILD,
        *("--select", "+resume_item_scores", "+resume_round_scores", "--indirect-selection", "cautious"),
    ]
    # and its figures never overwrite the benchmark's
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--smoke"])
    assert stopped.value.code == 2


class NightCostBench:
    """A stand-in for bench.Bench in night_cost_step: every `agent-eval build`
    is recorded, not run; its log says what a first night prints."""

    def __init__(self, bench, work, smoke=False, empty_project_from=None):
        self.bench, self.work, self.logs, self.smoke = bench, work, work / "logs", smoke
        self.empty_project_from = empty_project_from
        self.results, self.nodes, self.commands, self.warehouses = {}, {}, [], {}

    def timed(self, name, cmd, env=None, ok=(0,)):
        self.commands.append(name)
        db = Path(cmd[cmd.index("--db") + 1])
        self.warehouses.setdefault(name, db.read_bytes() if db.exists() else None)  # what the build starts from
        log = self.logs / f"{name}-{len(self.results.get(name, []))}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("   reports     done   2.50s\nreports written: 33 under reports\n")
        target = Path(env["DBT_TARGET_PATH"])
        target.mkdir(parents=True, exist_ok=True)
        result = {"unique_id": "model.agent_eval.load_log", "execution_time": 0.1, "status": "success"}
        (target / "run_results.json").write_text(json.dumps({"elapsed_time": 1.0, "results": [result]}))
        run = self.bench.Run(1.0, 1.0, 100.0)
        self.results.setdefault(name, []).append(run)
        return run

    def note_nodes(self, name, target):
        self.bench.Bench.note_nodes(self, name, target)


def test_a_night_cost_history_of_the_reference_size_is_built_once_for_both_sizes(tmp_path):
    bench = load_bench()
    # 100 files: 33 run folders of 3, as many as the reference (NIGHT_COST_SMALL = 100 files)
    same = NightCostBench(bench, tmp_path / "same")
    found = bench.night_cost_step(same, 100, 1)
    assert same.commands == ["night_first_small", "night_unchanged_small"]
    assert (found["small_runs"], found["large_runs"], found["large_first_reports_written"]) == (33, 33, 33)
    assert found["large_first_render_s"] == 2.5
    assert same.results["night_unchanged_large"] == same.results["night_unchanged_small"]
    assert same.nodes["night_unchanged_large"] == same.nodes["night_unchanged_small"]
    targets = {
        t.key: t
        for t in bench.night_cost_targets(
            {"night_cost": found, "figures": {name: bench.median_run(runs) for name, runs in same.results.items()}}
        )
    }
    assert targets["7n"].measured.startswith("1.00 ×")
    # 150 files: 50 run folders, another history, built on its own
    other = NightCostBench(bench, tmp_path / "other")
    demo_state = tmp_path / "other" / "demo" / "dbt" / "target" / "partial_parse.msgpack"
    demo_state.parent.mkdir(parents=True)
    demo_state.write_bytes(b"the demo's parse state")
    found = bench.night_cost_step(other, 150, 1)
    assert other.commands == [
        "night_first_small",
        "night_unchanged_small",
        "night_first_large",
        "night_unchanged_large",
    ]
    assert (found["small_runs"], found["large_runs"]) == (33, 50)
    # neither starts from another warehouse's parse state: each first night parses the project
    assert list((tmp_path / "other").rglob("partial_parse.msgpack")) == [demo_state]
    # 10 files, fewer than the reference: 3 run folders, the reference itself, built once
    fewer = NightCostBench(bench, tmp_path / "fewer")
    found = bench.night_cost_step(fewer, 10, 1)
    assert fewer.commands == ["night_first_small", "night_unchanged_small"]
    assert (found["files"], found["small_files"], found["small_runs"], found["large_runs"]) == (10, 10, 3, 3)
    assert [p.name for p in (tmp_path / "fewer" / "night_cost").iterdir()] == ["3-runs"]


def test_a_smoke_run_starts_its_night_from_the_demo_s_parse_state(tmp_path):
    bench = load_bench()
    smoke = NightCostBench(bench, tmp_path, smoke=True)
    # the demo's warehouse is named as the night's, so dbt's state check (the profile) agrees
    cmd, env = bench.demo_step(smoke)
    assert Path(cmd[cmd.index("--db") + 1]).name == "warehouse.duckdb"
    state = Path(env["DBT_TARGET_PATH"]) / "partial_parse.msgpack"
    state.parent.mkdir(parents=True)
    state.write_bytes(b"the demo's parse state")
    bench.night_cost_step(smoke, 100, 1)
    (seeded,) = (tmp_path / "night_cost").rglob("partial_parse.msgpack")
    assert seeded == tmp_path / "night_cost" / "33-runs" / "dbt" / "target" / "partial_parse.msgpack"
    assert seeded.read_bytes() == b"the demo's parse state"
    # `make bench` keeps the demo's own file name, and its first nights parse the project
    cmd, _ = bench.demo_step(NightCostBench(bench, tmp_path))
    assert Path(cmd[cmd.index("--db") + 1]).name == "demo.duckdb"


def test_a_smoke_run_from_the_empty_project_starts_each_first_night_on_a_copy_of_it(tmp_path):
    bench = load_bench()
    plain = NightCostBench(bench, tmp_path / "plain")
    bench.night_cost_step(plain, 150, 1)
    # `make bench`: a first night starts from nothing, as a user's does
    assert plain.warehouses["night_first_small"] is None and plain.warehouses["night_first_large"] is None
    empty = tmp_path / "empty.duckdb"
    empty.write_bytes(b"a warehouse of no drops")
    smoke = NightCostBench(bench, tmp_path / "smoke", smoke=True, empty_project_from=empty)
    for _ in range(2):  # a second invocation on the same work folder starts from the copy again
        (tmp_path / "smoke" / "night_cost" / "33-runs").mkdir(parents=True, exist_ok=True)
        (tmp_path / "smoke" / "night_cost" / "33-runs" / "warehouse.duckdb").write_bytes(b"the last run's")
        smoke.warehouses.clear()
        bench.night_cost_step(smoke, 150, 1)
        assert smoke.warehouses["night_first_small"] == smoke.warehouses["night_first_large"] == empty.read_bytes()
    assert empty.read_bytes() == b"a warehouse of no drops"


def recorded_bench(bench, work, samples_from=None, evaluate_cache_from=None):
    """A smoke run's bench.Bench whose measured commands are recorded, not
    run: each with the warehouse file it started from and the parse state
    it found in its dbt target/ (None: none)."""

    class Recorded(bench.Bench):
        commands: list[tuple[str, bytes | None, bytes | None]]

        def timed(self, name, cmd, env=None, ok=(0,)):
            env = self.env if env is None else env
            target = Path(env.get("DBT_TARGET_PATH", self.work / "no-dbt"))
            db = Path(cmd[cmd.index("--db") + 1]) if "--db" in cmd else self.db
            state = target / bench.PARSE_STATE
            self.commands.append(
                (name, db.read_bytes() if db.is_file() else None, state.read_bytes() if state.is_file() else None)
            )
            target.mkdir(parents=True, exist_ok=True)
            result = {"unique_id": "model.agent_eval.load_log", "execution_time": 0.1, "status": "success"}
            (target / "run_results.json").write_text(json.dumps({"elapsed_time": 1.0, "results": [result]}))
            if not db.is_file():
                db.parent.mkdir(parents=True, exist_ok=True)
                db.write_bytes(b"built from nothing")
            run = bench.Run(1.0, 1.0, 100.0)
            self.results.setdefault(name, []).append(run)
            return run

    run = work / "run"
    env = {"DBT_TARGET_PATH": str(work / "dbt" / "target")}
    recorded = Recorded(
        work,
        run / "drops",
        run / "warehouse.duckdb",
        env,
        {"samples": []},
        {},
        {},
        True,
        samples_from,
        evaluate_cache_from,
    )
    recorded.commands = []
    recorded.runs_dir.mkdir(parents=True)
    return recorded


def test_a_smoke_run_from_a_built_samples_warehouse_builds_the_samples_on_a_copy_of_it(tmp_path):
    bench = load_bench()
    # as `make bench`: the first plain build starts from an empty warehouse, the first demo from no parse state
    plain = recorded_bench(bench, tmp_path / "plain")
    samples_db = bench.first_runs(plain)
    assert plain.commands == [
        ("plain_first", None, None),
        ("evaluate_cold", b"built from nothing", None),
        ("demo_cold", None, None),
    ]
    assert samples_db.read_bytes() == b"built from nothing"
    # from a built warehouse of the samples (the demo warehouse's layout): the first plain build on a copy of
    # its file, and no demo yet (one_round's demo is both); the demo's target/ starts from its parse state
    built = tmp_path / "demo_warehouse"
    (built / "dbt" / "target").mkdir(parents=True)
    (built / "warehouse.duckdb").write_bytes(b"the samples, built")
    (built / "dbt" / "target" / bench.PARSE_STATE).write_bytes(b"the samples' parse state")
    (built / "reports" / "morning").mkdir(parents=True)
    (built / "reports" / "morning" / "2026-11-02.overview.png").write_bytes(b"a chart drawn")
    smoke = recorded_bench(bench, tmp_path / "smoke", samples_from=built)
    samples_db = bench.first_runs(smoke)
    assert smoke.commands == [
        ("plain_first", b"the samples, built", None),
        ("evaluate_cold", b"the samples, built", None),
    ]
    assert samples_db.read_bytes() == b"the samples, built"
    demo_state = tmp_path / "smoke" / "demo" / "dbt" / "target" / bench.PARSE_STATE
    assert demo_state.read_bytes() == b"the samples' parse state"
    # and its reports folder, as a second demo finds it: no chart is drawn again
    chart = tmp_path / "smoke" / "demo" / "reports" / "morning" / "2026-11-02.overview.png"
    assert chart.read_bytes() == b"a chart drawn"
    # the demo warehouse itself is only read
    assert (built / "warehouse.duckdb").read_bytes() == b"the samples, built"
    # only a smoke run starts from a warehouse built elsewhere
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--smoke-from", str(built), "--out", str(tmp_path / "out.md")])
    assert stopped.value.code == 2


def test_a_smoke_run_from_a_built_evaluation_plan_evaluates_on_a_copy_of_it(tmp_path):
    bench = load_bench()
    plan = tmp_path / "plan" / "cache"
    (plan / "key").mkdir(parents=True)
    (plan / "key" / "plan.json").write_text("a plan, built")
    smoke = recorded_bench(bench, tmp_path / "smoke", evaluate_cache_from=plan)
    bench.first_runs(smoke)
    # no cold evaluate: the first one (one_round's) runs on a copy of the plan's cache
    assert [name for name, _, _ in smoke.commands] == ["plain_first", "demo_cold"]
    copied = tmp_path / "smoke" / "evaluate" / "cache" / "key" / "plan.json"
    assert copied.read_text() == "a plan, built"
    _, env = bench.evaluate_step(smoke)
    assert Path(env["AGENT_EVAL_CACHE"]) == copied.parent.parent
    assert (plan / "key" / "plan.json").read_text() == "a plan, built"  # only read
    # only a smoke run starts from a plan built elsewhere
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--smoke-evaluate-cache", str(plan), "--out", str(tmp_path / "out.md")])
    assert stopped.value.code == 2


def test_the_promptfoo_target_judges_what_the_file_adds_to_the_import():
    bench = load_bench()
    run = {"peak_rss_mib": 100.0, "cpu_s": 1.0, "runs": 1}
    figures = {}
    promptfoo = {"results": 1000, "json_bytes": 2**20, "jsonl_bytes": 2**20}
    for suffix in ("json", "jsonl"):
        figures[f"promptfoo_{suffix}_import"] = {**run, "wall_s": 9.0}
        figures[f"promptfoo_{suffix}_floor"] = {**run, "wall_s": 2.0}
        figures[f"promptfoo_{suffix}_no_file"] = {**run, "wall_s": 6.0}
        # the median of the paired differences, not the difference of medians
        promptfoo[f"{suffix}_added_s"] = 3.5
    targets = {t.key: t for t in bench.promptfoo_targets({"promptfoo": promptfoo, "figures": figures})}
    for key in ("9", "9l"):
        # 3.5 s added over a 2 s floor: 1.75 x, within 2 x (9 s / 2 s would not be)
        assert targets[key].holds is True
        assert targets[key].measured.startswith("1.75 ×")
        assert "9.00 s with the file, 6.00 s without, 3.50 s added; floor 2.00 s" in targets[key].measured
