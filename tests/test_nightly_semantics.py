"""SPEC §2.2 nightly semantics, each as a test on real dbt builds (without
dbt's data tests, which the other files' builds run: loading is checked here).
A test that starts from a fixture's first build starts from a copy of the
session's build of it (conftest.Snapshot), so that build is paid once: the
night2 tests start from fixtures basic + night2 built together, the state
test_nightly_inputs.py, test_delivery_issues.py and test_serving.py start
from too (basic's file is 2026-11-01's, with rejected rows; night2's has
none, and the tests read night2's rows).

tests/fixtures/night2/2026-11-02/resume_agent_basic.csv, by hand:
  1/1: QA t1 ok 3s -> 5 | QB t3 partial ('선택') 25s multi -> 4
  2/1: QA t1 ok 9s -> 3 | QB t3 error (오류), no Raw JSON -> latency 0
  intent: 1/1 (5+4)/2 = 4.5, 2/1 (5+0)/2 = 2.5, set 3.5
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import duckdb
import pytest

from agent_eval.cli import EXIT_REJECTED

BASIC = "2026-11-01/resume_agent_basic.csv"
NIGHT2 = "2026-11-02/resume_agent_basic.csv"
PUBLIC_TABLES = [
    "marts.resume_item_scores",
    "marts.resume_round_scores",
    "marts.resume_round_track_scores",
    "marts.resume_set_scores",
    "marts.resume_set_track_scores",
    "marts.resume_consistency_pairs",
    "marts.resume_consistency_round_pairs",
    "marts.resume_latency_distribution",
    "marts.history_set_metrics",
    "marts.history_metric_trends",
    "marts.history_metric_diffs",
    "marts.history_query_repeats",
    "marts.history_query_pass_at_k",
    "marts.history_flips",
    "marts.history_flip_tests",
    "marts.history_latency_percentiles",
    "marts.history_gate_results",
    "ops.load_log",
    "ops.rejected_files",
    "ops.rejected_rows",
    "ops.file_reconciliation",
]


# The query by which a set_incremental model asks which sets it has not
# built yet (macros/incremental_sets.sql, unbuilt_sets), as dbt's debug log
# shows it: the current sets except the built ones.
UNBUILT_SETS_QUERY = re.compile(r"\bexcept\s+(?:--[^\n]*\s+)*select distinct set_id\b")


def snapshot(wh) -> dict[str, list[tuple]]:
    return {t: wh.query(f"select * from {t} order by all") for t in PUBLIC_TABLES}


def unbuilt_sets_queries(wh) -> int:
    """How many unbuilt-sets queries dbt's log of the warehouse holds."""
    return len(UNBUILT_SETS_QUERY.findall((wh.paths.log_dir / "dbt.log").read_text(encoding="utf-8")))


def test_rerun_without_new_files_changes_nothing(built):
    warehouse, code = built("basic", "night2")
    assert code == EXIT_REJECTED  # basic's rejected rows
    before = snapshot(warehouse)
    raw_before = warehouse.query("select count(*) from raw.raw_resume_agent_rows")
    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    assert snapshot(warehouse) == before
    assert warehouse.query("select count(*) from raw.raw_resume_agent_rows") == raw_before
    assert warehouse.query("select count(*) from raw.raw_drop_files") == [(2,)]
    # no input of a set-grained model changed since it last ran: it has no
    # set to build, known without asking the warehouse
    # (docs/decisions/0058-no-set-query-when-inputs-are-unchanged.md)
    assert unbuilt_sets_queries(warehouse) == 0


def test_states_recorded_without_input_versions_get_them_when_reused(built):
    warehouse, code = built("basic", "night2")
    assert code == EXIT_REJECTED
    before = snapshot(warehouse)
    # a warehouse whose node states were recorded before their inputs' digest
    # was (and before builds left agents without input out: docs/decisions/0060)
    with duckdb.connect(str(warehouse.paths.db_path)) as con:
        con.execute("update build_state.node_state set inputs_version = null")
        con.execute("drop table build_state.complete_build")
    assert warehouse.build(data_tests=False) == EXIT_REJECTED
    assert snapshot(warehouse) == before
    # the models asked which sets to build, as before the digest was kept
    assert unbuilt_sets_queries(warehouse) > 0
    # and every reused model and seed has its digest again: the next night
    # asks nothing
    assert warehouse.query(
        "select count(*) from build_state.node_state where inputs_version is null and unique_id not like 'test.%'"
    ) == [(0,)]


def test_night2_scores(built):
    warehouse, code = built("basic", "night2")
    assert code == EXIT_REJECTED  # basic's rejected rows; night2 has none
    assert warehouse.query("select count(*) from ops.rejected_rows where source_file = ?", [NIGHT2]) == [(0,)]
    assert warehouse.query("select count(*) from ops.rejected_files") == [(0,)]
    (row,) = warehouse.query(
        "select intent_score, stability_score, latency_score, consistency_score"
        " from marts.resume_set_scores where set_id = ?",
        [NIGHT2],
    )
    # stability 1/1 (5+5)/2, 2/1 (5+0)/2 -> 3.75; latency 1/1 (5+4)/2, 2/1 (3+0)/2 -> 3.0
    # consistency: QA pass/pass, QB partial/error -> 5 x 1/2
    assert row == pytest.approx((3.5, 3.75, 3.0, 2.5))


@pytest.fixture(scope="module")
def second_night(module_built) -> SimpleNamespace:
    """Night 1 (fixture basic), then night 2 (night2) added: the
    incremental path, which two tests read. The night-1 rows are marked
    before night 2 (a recomputation would overwrite the marker), then given
    back their built values, so the full refresh that follows is compared
    with the state night 2 left."""
    warehouse, first = module_built("basic")
    with duckdb.connect(str(warehouse.paths.db_path)) as con:
        categories = con.execute(
            "select line_number, category from marts.resume_item_scores where set_id = ?", [BASIC]
        ).fetchall()
        (rounds,) = con.execute("select rounds from marts.resume_set_scores where set_id = ?", [BASIC]).fetchone()
        con.execute("update marts.resume_item_scores set category = 'MARKER' where set_id = ?", [BASIC])
        con.execute("update marts.resume_set_scores set rounds = 'MARKER' where set_id = ?", [BASIC])
    assert len({line for line, _ in categories}) == len(categories) > 0  # one row per line: restorable
    warehouse.add_fixture("night2")
    second = warehouse.build(data_tests=False)
    sets = warehouse.query("select set_id, rounds from marts.resume_set_scores order by set_id")
    marked = warehouse.query("select distinct category from marts.resume_item_scores where set_id = ?", [BASIC])
    with duckdb.connect(str(warehouse.paths.db_path)) as con:
        con.executemany(
            "update marts.resume_item_scores set category = ? where set_id = ? and line_number = ?",
            [[category, BASIC, line] for line, category in categories],
        )
        con.execute("update marts.resume_set_scores set rounds = ? where set_id = ?", [rounds, BASIC])
    incremental = snapshot(warehouse)
    refreshed = warehouse.build(full_refresh=True, data_tests=False)
    return SimpleNamespace(
        codes=(first, second, refreshed),
        sets=sets,
        marked=marked,
        incremental=incremental,
        full_refresh=snapshot(warehouse),
    )


def test_new_drop_adds_sets_without_recomputing_old_ones(second_night):
    first, second, _ = second_night.codes
    assert (first, second) == (EXIT_REJECTED, EXIT_REJECTED)
    assert second_night.sets == [(BASIC, "MARKER"), (NIGHT2, "1/1,2/1")]
    assert second_night.marked == [("MARKER",)]


def test_full_refresh_gives_identical_marts(second_night):
    assert second_night.codes == (EXIT_REJECTED, EXIT_REJECTED, EXIT_REJECTED)
    assert second_night.full_refresh == second_night.incremental


def test_reconciliation_test_fails_when_rows_go_missing(built):
    warehouse, code = built("basic", "night2")
    assert code == EXIT_REJECTED
    with duckdb.connect(str(warehouse.paths.db_path)) as con:
        con.execute("delete from marts.resume_item_scores where line_number = 2")
    from agent_eval import runner

    # the rows were deleted behind dbt's back, which node reuse cannot see
    # (docs/decisions/0019-reuse-unchanged-nodes.md): execute the selection,
    # as after such a repair
    with pytest.raises(runner.DbtFailed):
        runner.run_dbt(
            warehouse.paths,
            [
                "build",
                "--select",
                "file_reconciliation+",
                "--project-dir",
                str(warehouse.paths.project_dir),
                "--vars",
                "{reuse: false}",
            ],
            quiet=True,
        )
