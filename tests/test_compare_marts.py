"""scripts/compare_marts.py, the guard of refactors that must not change any
row: its comparison on two small warehouses written here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import duckdb

from conftest import PROJECT_DIR


def load_script():
    spec = importlib.util.spec_from_file_location("compare_marts", PROJECT_DIR / "scripts" / "compare_marts.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def warehouse(path: Path, statements: list[str]) -> Path:
    with duckdb.connect(str(path)) as con:
        for schema in ("marts", "ops", "build_state"):
            con.execute(f"create schema {schema}")
        for statement in statements:
            con.execute(statement)
    return path


COMMON = [
    "create table marts.scores as select * from (values ('s1', 1, 0.5), ('s1', 2, 0.25)) t(set_id, line, score)",
    "create table build_state.node_state as select 'x' as unique_id",  # bookkeeping: never compared
]


def test_equal_tables_pass_and_every_kind_of_difference_is_named(tmp_path):
    compare_marts = load_script()
    base = warehouse(
        tmp_path / "base.duckdb",
        [
            *COMMON,
            # the same rows loaded at another time: loaded_at is left out
            "create table ops.load_log as select 'f.csv' as source_file, timestamp '2026-01-01' as loaded_at",
            "create table marts.gone as select 1 as n",
            "create table marts.dups as select * from (values (1), (1), (2)) t(n)",
            "create table marts.typed as select 1 as n",
        ],
    )
    head = warehouse(
        tmp_path / "head.duckdb",
        [
            *COMMON,
            "create table ops.load_log as select 'f.csv' as source_file, timestamp '2026-02-02' as loaded_at",
            "create table marts.new as select 1 as n",
            # a multiset: one duplicate fewer is a difference
            "create table marts.dups as select * from (values (1), (2), (2)) t(n)",
            "create table marts.typed as select 1 as m",
        ],
    )
    problems = compare_marts.compare(base, head, set(compare_marts.VOLATILE))
    assert problems == [
        "marts.gone: only in the base build",
        "marts.new: only in the working tree's build",
        "marts.dups: 1 row(s) only in the base build, 1 only in the working tree's (3 rows)",
        "marts.typed: columns differ: ['n'] against ['m']",
    ]


def test_an_ignored_column_is_left_out(tmp_path):
    compare_marts = load_script()
    base = warehouse(
        tmp_path / "base.duckdb", ["create table marts.s as select 's1' as set_id, 'v1' as scoring_version"]
    )
    head = warehouse(
        tmp_path / "head.duckdb", ["create table marts.s as select 's1' as set_id, 'v2' as scoring_version"]
    )
    assert compare_marts.compare(base, head, set(compare_marts.VOLATILE)) == [
        "marts.s: 1 row(s) only in the base build, 1 only in the working tree's (1 rows)"
    ]
    assert compare_marts.compare(base, head, {*compare_marts.VOLATILE, "scoring_version"}) == []
