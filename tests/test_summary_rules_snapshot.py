"""The rule snapshot: editing a rule seed changes the hash stored with every
summary result and re-scores the sets; --full-refresh gives the same marts.

Runs on a copy of the dbt project (so the seed can be edited safely), from
the session's first build of summary_basic."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_eval import cli
from agent_eval.project import Paths
from conftest import built_on_project_copy

CLAIMS = "2026-11-03/summary_claims.json"
SEED = Path("seeds") / "summary" / "summary_definitive_keywords.csv"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> tuple[Paths, int]:
    """The session's build of summary_basic, built on with a project copy."""
    return built_on_project_copy(tmp_path_factory, ("summary_basic",))


def _query(paths: Paths, sql: str) -> list[tuple]:
    import duckdb

    with duckdb.connect(str(paths.db_path), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_editing_a_rule_seed_changes_the_snapshot_and_rescores(project):
    project, first_build = project
    assert first_build == cli.EXIT_REJECTED
    before = _query(project, "select distinct rule_snapshot from marts.summary_case_scores")
    # tc-002 says 무조건 and `전액  지급`: non_definitive 0.0 with the shipped seed
    assert _query(project, "select summary_non_definitive from marts.summary_case_scores where case_id = 'tc-002'") == [
        (0.0,)
    ]

    seed = project.project_dir / SEED
    lines = seed.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not line.startswith(("무조건,", "전액 지급,"))]
    assert len(kept) == len(lines) - 2
    seed.write_text("\n".join(kept) + "\n", encoding="utf-8")

    assert cli.cmd_build(project, reports=False) == cli.EXIT_REJECTED
    after = _query(project, "select distinct rule_snapshot from marts.summary_case_scores")
    assert len(before) == len(after) == 1 and before != after
    assert _query(project, "select rule_snapshot from intermediate.int_summary__rule_snapshot") == after
    # without 무조건 / 전액 지급 the answer has no definitive expression: 1.0
    assert _query(
        project,
        "select summary_non_definitive, definitive_expressions from marts.summary_case_scores where case_id = 'tc-002'",
    ) == [(1.0, None)]

    marts = ["summary_case_scores", "summary_set_scores", "summary_set_metrics", "summary_review_queue"]
    incremental = {m: _query(project, f"select * from marts.{m} order by all") for m in marts}
    # the full refresh without dbt's data tests: its marts must equal the
    # incremental build's, whose data tests ran on them
    assert cli.cmd_build(project, full_refresh=True, reports=False, data_tests=False) == cli.EXIT_REJECTED
    for m in marts:
        assert _query(project, f"select * from marts.{m} order by all") == incremental[m], m
