"""Write-time checks and reuse of unchanged nodes (docs/testing.md).

Every rule a node declares (grain, row rules, table rules, contract
constraints) must be able to fail the build, with a message naming the
relation and the rule; an unchanged night must execute no model. Runs on a
copy of the dbt project, so seeds and models can be broken on purpose. The
builds after the unchanged night leave dbt's data tests out: the rules
checked here are enforced where the rows are written, not by data tests.

The builds are one module-scoped sequence (``builds``), each test reading
what its steps recorded: a failing build is followed by one plain build
that must recover, and breaks in lineages that do not meet (the resume
agent's appended scores, the recruit agent's set-grained marts) share one
failing build, so no break can hide another behind a skipped node.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from agent_eval import cli, gates
from agent_eval.project import Paths
from conftest import FIXTURES, built_on_project_copy

# the fixture drops reject two rows on purpose: a good build exits 3
GOOD = cli.EXIT_REJECTED


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Paths:
    """The session's first build of the basic fixture (test_an_unchanged_night
    checks it), built on with a copy of the project."""
    paths, code = built_on_project_copy(tmp_path_factory, ("basic",), singular_tests=True)
    assert code == GOOD
    return paths


def results(paths: Paths) -> dict[str, dict]:
    data = json.loads((paths.target_dir / "run_results.json").read_text())
    return {r["unique_id"]: r for r in data["results"]}


def query(paths: Paths, sql: str) -> list[tuple]:
    with duckdb.connect(str(paths.db_path), read_only=True) as con:
        return con.execute(sql).fetchall()


def relation_exists(paths: Paths, schema: str, name: str) -> bool:
    with duckdb.connect(str(paths.db_path), read_only=True) as con:
        return bool(
            con.execute(
                "select 1 from duckdb_tables() where schema_name = ? and table_name = ?", [schema, name]
            ).fetchall()
        )


class Edit:
    """Replace text in a file of the project copy; undo restores it."""

    def __init__(self, path: Path, old: str, new: str) -> None:
        self.path, self.original = path, path.read_text(encoding="utf-8")
        assert old in self.original, (path, old)
        path.write_text(self.original.replace(old, new, 1), encoding="utf-8")

    def undo(self) -> None:
        self.path.write_text(self.original, encoding="utf-8")


# the set-grained marts of another agent than the appended scores': the
# recruit agent reads nothing of the resume agent, so its misconfigured
# models run (and fail) in the same build as the resume agent's duplicate
RECRUIT_MARTS = Path("models") / "marts" / "recruit_agent"
RESUME_SCORES = Path("models") / "marts" / "resume_agent" / "resume_item_scores.sql"


def build(paths: Paths, **options: Any) -> tuple[int, str]:
    """cmd_build without reports; its exit code and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.cmd_build(paths, reports=False, **options)
    return code, out.getvalue()


def scores_by_set(paths: Paths) -> list[tuple]:
    return query(paths, "select set_id, count(*) from marts.resume_item_scores group by 1 order by 1")


@pytest.fixture(scope="module")
def builds(project) -> dict[str, dict[str, Any]]:
    """The module's builds, in order, each on the state the one before left;
    what each test checks is kept under its step's name:

    1. ``unchanged``: a plain build right after the first (with data tests);
    2. ``seed_edit``: a partial keyword added to its seed;
    3. ``broken_seeds``: that edit undone; three seeds broken, one rule each;
    4. ``restored``: the seeds undone, a plain build (the recovery of 2 and 3);
    5. ``contract``: a full refresh whose resume scores break their contract;
    6. ``after_contract``: undone, a plain build (no second full refresh);
    7. ``append``: night2 delivered while the resume scores duplicate their
       rows, and two recruit set-grained marts misconfigured;
    8. ``appended``: all undone, a plain build (the recovery of 7).
    """
    edits: list[Edit] = []

    def undo() -> None:
        while edits:
            edits.pop().undo()

    seen: dict[str, dict[str, Any]] = {}
    seeds = project.project_dir / "seeds"
    try:
        first = results(project)  # the first build's (the snapshot's)
        code, _ = build(project)
        seen["unchanged"] = {
            "first": first,
            "code": code,
            "run": results(project),
            "scored": query(project, "select count(*) from marts.resume_item_scores"),
            "valid": query(project, "select sum(n_valid_rows) from ops.file_reconciliation where is_current"),
        }

        edits.append(
            Edit(
                seeds / "common" / "partial_keywords.csv", "\n", "\n알려드릴까요,a partial keyword added by the test\n"
            )
        )
        code, _ = build(project, data_tests=False)
        seen["seed_edit"] = {"code": code, "run": results(project)}
        undo()

        edits += [
            # a keyword twice: the seed's grain (keyword)
            Edit(seeds / "common" / "partial_keywords.csv", "\n", "\n선택,duplicate\n선택,duplicate again\n"),
            # a latency score of 7 on a 0-5 rubric: row rule score_range
            Edit(seeds / "common" / "latency_rubric.csv", ",5\n", ",7\n"),
            # weights summing to 1.1: table rule weights_sum_to_one
            Edit(seeds / "recruit_agent" / "recruit_weights.csv", "0.2", "0.3"),
        ]
        code, printed = build(project, data_tests=False)
        seen["broken_seeds"] = {
            "code": code,
            "text": printed,
            "log": (project.log_dir / "dbt.log").read_text(encoding="utf-8"),
            "seeds_left": {
                name: relation_exists(project, "rubric", name)
                for name in ("partial_keywords", "latency_rubric", "recruit_weights")
            },
            "run": results(project),
        }
        undo()

        code, _ = build(project, data_tests=False)
        seen["restored"] = {"code": code, "partial_keywords": relation_exists(project, "rubric", "partial_keywords")}

        # contract constraints are enforced by DuckDB on every write
        edits.append(
            Edit(project.project_dir / RESUME_SCORES, "items.intent_score,", "items.intent_score + 10 as intent_score,")
        )
        code, _ = build(project, full_refresh=True, data_tests=False)
        seen["contract"] = {"code": code, "run": results(project)}
        undo()

        code, _ = build(project, data_tests=False)
        seen["after_contract"] = {
            "code": code,
            "in_range": query(project, "select max(intent_score) <= 5 from marts.resume_item_scores"),
        }

        before = scores_by_set(project)
        shutil.copytree(FIXTURES / "night2", project.drops_dir, dirs_exist_ok=True)
        recruit = project.project_dir / RECRUIT_MARTS
        edits += [
            Edit(
                project.project_dir / RESUME_SCORES,
                "select * from final",
                "select * from final\nunion all\nselect * from final",
            ),
            # every build would append every set again: refused before any row is written
            Edit(
                recruit / "recruit_round_scores.sql",
                "{{ unbuilt(ref('recruit_item_scores')) }}",
                "{{ ref('recruit_item_scores') }}",
            ),
            # its DAG would not order the sets model first: refused at compile time
            Edit(
                recruit / "recruit_latency_distribution.sql",
                "kind='recruit_agent'",
                "kind='recruit_agent', sets_model='int_engagement__runs_current'",
            ),
        ]
        code, _ = build(project, data_tests=False)
        seen["append"] = {"code": code, "run": results(project), "before": before, "after": scores_by_set(project)}
        undo()

        code, _ = build(project, data_tests=False)
        seen["appended"] = {
            "code": code,
            "sets": [r[0] for r in query(project, "select distinct set_id from marts.resume_item_scores order by 1")],
        }
    finally:
        undo()
    return seen


def test_an_unchanged_night_executes_no_model(builds):
    night = builds["unchanged"]
    # every node of the first build succeeded but the verdict on the fixture's rejected rows
    assert {
        uid
        for uid, r in night["first"].items()
        if not uid.startswith("exposure.") and r["status"] not in ("success", "pass")
    } == {gates.REJECTED_INPUT_TEST}
    # the build after the creation: the incremental models' set filters
    # went from "every set" to "none", which the reuse fingerprint leaves
    # out (docs/decisions/0019-reuse-unchanged-nodes.md), so nothing is
    # executed again
    assert night["code"] == GOOD
    executed = sorted(
        uid for uid, r in night["run"].items() if uid.split(".")[0] in ("model", "seed") and r["message"] != "REUSED"
    )
    # the manifest looks at the drops folder every night; the gate log stamps
    # the build that evaluated the gates; everything else is reused
    assert executed == ["model.agent_eval.history_gate_log", "model.agent_eval.raw_drop_files"]
    # and the reused marts still hold the night's scores
    assert night["scored"] == night["valid"]


def test_a_seed_edit_reruns_what_reads_it_and_nothing_else(builds):
    night = builds["seed_edit"]
    assert night["code"] == GOOD
    run = night["run"]
    assert run["seed.agent_eval.partial_keywords"]["message"] != "REUSED"
    assert run["model.agent_eval.int_resume_agent__items_labelled"]["message"] != "REUSED"
    # the summary agent does not read the partial keywords
    assert run["model.agent_eval.summary_case_scores"]["message"] == "REUSED"
    assert run["seed.agent_eval.latency_rubric"]["message"] == "REUSED"
    # the seed edit undone, the next good build succeeds
    assert builds["restored"]["code"] == GOOD


def test_broken_seeds_fail_the_build_naming_relation_rule_and_key(builds):
    night = builds["broken_seeds"]
    assert night["code"] == cli.EXIT_FAILED
    for expected in (
        "write-time check failed on",
        "key(s) of the grain (keyword) occur more than once, e.g. (keyword=선택) x",
        "break rule score_range (score is null or score between 0 and 5)",
        "rule weights_sum_to_one is false: abs(sum(weight) - 1) < 1e-9",
    ):
        assert expected in night["text"] or expected in night["log"], expected
    # a seed that failed its checks is dropped: the next build loads and checks it again
    assert night["seeds_left"] == {"partial_keywords": False, "latency_rubric": False, "recruit_weights": False}
    # nothing downstream of them was built on bad rules
    assert night["run"]["model.agent_eval.int_resume_agent__items_labelled"]["status"] == "skipped"
    assert builds["restored"] == {"code": GOOD, "partial_keywords": True}


def test_a_mart_writing_an_out_of_range_score_fails_its_contract(builds):
    night = builds["contract"]
    assert night["code"] == cli.EXIT_FAILED
    failed = night["run"]["model.agent_eval.resume_item_scores"]
    assert failed["status"] == "error"
    assert "CHECK constraint failed" in failed["message"] and "intent_score" in failed["message"]
    # a plain build (no second full refresh) recovers
    assert builds["after_contract"] == {"code": GOOD, "in_range": [(True,)]}


def test_a_duplicated_key_in_a_nightly_append_is_rolled_back(builds):
    night = builds["append"]
    assert [set_id for set_id, _ in night["before"]] == ["2026-11-01/resume_agent_basic.csv"]
    assert night["code"] == cli.EXIT_FAILED
    failed = night["run"]["model.agent_eval.resume_item_scores"]
    assert failed["status"] == "error"
    assert "key(s) of the grain (set_id, line_number) occur more than once" in failed["message"]
    assert "set_id=2026-11-02/resume_agent_basic.csv" in failed["message"]
    # the append was rolled back: the first night is intact, nothing of the second
    assert night["after"] == night["before"]
    assert builds["appended"] == {
        "code": GOOD,
        "sets": ["2026-11-01/resume_agent_basic.csv", "2026-11-02/resume_agent_basic.csv"],
    }


def test_a_set_grained_model_that_filters_no_input_fails_naming_it(builds):
    night = builds["append"]
    assert night["code"] == cli.EXIT_FAILED
    failed = night["run"]["model.agent_eval.recruit_round_scores"]
    assert failed["status"] == "error"
    assert "recruit_round_scores is set_incremental but reads no input through unbuilt()" in failed["message"]
    assert builds["appended"]["code"] == GOOD


def test_a_set_grained_model_whose_sets_model_is_not_upstream_fails_naming_both(builds):
    night = builds["append"]
    assert night["code"] == cli.EXIT_FAILED
    failed = night["run"]["model.agent_eval.recruit_latency_distribution"]
    assert failed["status"] == "error"
    assert (
        "recruit_latency_distribution reads its sets from int_engagement__runs_current, which is not upstream of it"
        in failed["message"]
    )
    assert builds["appended"]["code"] == GOOD
