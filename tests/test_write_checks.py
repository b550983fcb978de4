"""Write-time checks and reuse of unchanged nodes (docs/testing.md).

Every rule a node declares (grain, row rules, table rules, contract
constraints) must be able to fail the build, with a message naming the
relation and the rule; an unchanged night must execute no model. Runs on a
copy of the dbt project, so seeds and models can be broken on purpose. The
builds after the unchanged night leave dbt's data tests out: the rules
checked here are enforced where the rows are written, not by data tests.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

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


def test_an_unchanged_night_executes_no_model(project):
    first = results(project)  # the first build's (the snapshot's)
    # every node succeeded but the verdict on the fixture's rejected rows
    assert {
        uid for uid, r in first.items() if not uid.startswith("exposure.") and r["status"] not in ("success", "pass")
    } == {gates.REJECTED_INPUT_TEST}
    # the build after the creation: the incremental models' set filters
    # went from "every set" to "none", which the reuse fingerprint leaves
    # out (docs/decisions/0019-reuse-unchanged-nodes.md), so nothing is
    # executed again
    assert cli.cmd_build(project, reports=False) == GOOD
    again = results(project)
    executed = sorted(
        uid for uid, r in again.items() if uid.split(".")[0] in ("model", "seed") and r["message"] != "REUSED"
    )
    # the manifest looks at the drops folder every night; the gate log stamps
    # the build that evaluated the gates; everything else is reused
    assert executed == ["model.agent_eval.history_gate_log", "model.agent_eval.raw_drop_files"]
    # and the reused marts still hold the night's scores
    assert query(project, "select count(*) from marts.resume_item_scores") == query(
        project, "select sum(n_valid_rows) from ops.file_reconciliation where is_current"
    )


def test_a_seed_edit_reruns_what_reads_it_and_nothing_else(project):
    seed = project.project_dir / "seeds" / "common" / "partial_keywords.csv"
    edit = Edit(seed, "\n", "\n알려드릴까요,a partial keyword added by the test\n")
    try:
        assert cli.cmd_build(project, reports=False, data_tests=False) == GOOD
        run = results(project)
        assert run["seed.agent_eval.partial_keywords"]["message"] != "REUSED"
        assert run["model.agent_eval.int_resume_agent__items_labelled"]["message"] != "REUSED"
        # the summary agent does not read the partial keywords
        assert run["model.agent_eval.summary_case_scores"]["message"] == "REUSED"
        assert run["seed.agent_eval.latency_rubric"]["message"] == "REUSED"
    finally:
        edit.undo()
    assert cli.cmd_build(project, reports=False, data_tests=False) == GOOD


def test_broken_seeds_fail_the_build_naming_relation_rule_and_key(project, capsys):
    seeds = project.project_dir / "seeds"
    edits = [
        # a keyword twice: the seed's grain (keyword)
        Edit(seeds / "common" / "partial_keywords.csv", "\n", "\n선택,duplicate\n선택,duplicate again\n"),
        # a latency score of 7 on a 0-5 rubric: row rule score_range
        Edit(seeds / "common" / "latency_rubric.csv", ",5\n", ",7\n"),
        # weights summing to 1.1: table rule weights_sum_to_one
        Edit(seeds / "recruit_agent" / "recruit_weights.csv", "0.2", "0.3"),
    ]
    try:
        capsys.readouterr()
        assert cli.cmd_build(project, reports=False, data_tests=False) == cli.EXIT_FAILED
        out = capsys.readouterr()
        text = out.out + out.err
        log = (project.log_dir / "dbt.log").read_text(encoding="utf-8")
        for expected in (
            "write-time check failed on",
            "key(s) of the grain (keyword) occur more than once, e.g. (keyword=선택) x",
            "break rule score_range (score is null or score between 0 and 5)",
            "rule weights_sum_to_one is false: abs(sum(weight) - 1) < 1e-9",
        ):
            assert expected in text or expected in log, expected
        # a seed that failed its checks is dropped: the next build loads and checks it again
        for name in ("partial_keywords", "latency_rubric", "recruit_weights"):
            assert not relation_exists(project, "rubric", name), name
        # nothing downstream of them was built on bad rules
        run = results(project)
        assert run["model.agent_eval.int_resume_agent__items_labelled"]["status"] == "skipped"
    finally:
        for edit in edits:
            edit.undo()
    assert cli.cmd_build(project, reports=False, data_tests=False) == GOOD
    assert relation_exists(project, "rubric", "partial_keywords")


def test_a_mart_writing_an_out_of_range_score_fails_its_contract(project):
    # contract constraints are enforced by DuckDB on every write
    model = project.project_dir / "models" / "marts" / "resume_agent" / "resume_item_scores.sql"
    edit = Edit(model, "items.intent_score,", "items.intent_score + 10 as intent_score,")
    try:
        assert cli.cmd_build(project, full_refresh=True, reports=False, data_tests=False) == cli.EXIT_FAILED
        run = results(project)
        failed = run["model.agent_eval.resume_item_scores"]
        assert failed["status"] == "error"
        assert "CHECK constraint failed" in failed["message"] and "intent_score" in failed["message"]
    finally:
        edit.undo()
    # a plain build (no second full refresh) recovers
    assert cli.cmd_build(project, reports=False, data_tests=False) == GOOD
    assert query(project, "select max(intent_score) <= 5 from marts.resume_item_scores") == [(True,)]


def test_a_duplicated_key_in_a_nightly_append_is_rolled_back(project):
    before = query(project, "select set_id, count(*) from marts.resume_item_scores group by 1 order by 1")
    assert [set_id for set_id, _ in before] == ["2026-11-01/resume_agent_basic.csv"]
    shutil.copytree(FIXTURES / "night2", project.drops_dir, dirs_exist_ok=True)
    model = project.project_dir / "models" / "marts" / "resume_agent" / "resume_item_scores.sql"
    edit = Edit(model, "select * from final", "select * from final\nunion all\nselect * from final")
    try:
        assert cli.cmd_build(project, reports=False, data_tests=False) == cli.EXIT_FAILED
        failed = results(project)["model.agent_eval.resume_item_scores"]
        assert failed["status"] == "error"
        assert "key(s) of the grain (set_id, line_number) occur more than once" in failed["message"]
        assert "set_id=2026-11-02/resume_agent_basic.csv" in failed["message"]
        # the append was rolled back: the first night is intact, nothing of the second
        assert query(project, "select set_id, count(*) from marts.resume_item_scores group by 1 order by 1") == before
    finally:
        edit.undo()
    assert cli.cmd_build(project, reports=False, data_tests=False) == GOOD
    assert [r[0] for r in query(project, "select distinct set_id from marts.resume_item_scores order by 1")] == [
        "2026-11-01/resume_agent_basic.csv",
        "2026-11-02/resume_agent_basic.csv",
    ]


@pytest.fixture(scope="module")
def misconfigured(project) -> tuple[int, dict[str, dict], int]:
    """Two set-grained models misconfigured at once (neither reads the
    other): one build with both, then a plain build after both are undone.
    Returns that build's exit code and dbt's results, and the exit code
    of the build after."""
    marts = project.project_dir / "models" / "marts" / "resume_agent"
    edits = [
        # every build would append every set again: refused before any row is written
        Edit(
            marts / "resume_round_scores.sql",
            "{{ unbuilt(ref('resume_item_scores')) }}",
            "{{ ref('resume_item_scores') }}",
        ),
        # its DAG would not order the sets model first: refused at compile time
        Edit(
            marts / "resume_latency_distribution.sql",
            "kind='resume_agent'",
            "kind='resume_agent', sets_model='int_engagement__runs_current'",
        ),
    ]
    try:
        code = cli.cmd_build(project, reports=False, data_tests=False)
        run = results(project)
    finally:
        for edit in edits:
            edit.undo()
    return code, run, cli.cmd_build(project, reports=False, data_tests=False)


def test_a_set_grained_model_that_filters_no_input_fails_naming_it(misconfigured):
    code, run, after = misconfigured
    assert code == cli.EXIT_FAILED
    failed = run["model.agent_eval.resume_round_scores"]
    assert failed["status"] == "error"
    assert "resume_round_scores is set_incremental but reads no input through unbuilt()" in failed["message"]
    assert after == GOOD


def test_a_set_grained_model_whose_sets_model_is_not_upstream_fails_naming_both(misconfigured):
    code, run, after = misconfigured
    assert code == cli.EXIT_FAILED
    failed = run["model.agent_eval.resume_latency_distribution"]
    assert failed["status"] == "error"
    assert (
        "resume_latency_distribution reads its sets from int_engagement__runs_current, which is not upstream of it"
        in failed["message"]
    )
    assert after == GOOD
