"""Compare every table two versions of the project build from the same drops.

The guard of a refactor that must not change what the warehouse holds
("every mart is row-for-row identical before and after"). Builds
the drops once with a git revision of the project (its models, macros, seeds
and Python loaders, checked out into a temporary worktree) and once with the
working tree, then compares each table of the compared schemas as a multiset
of rows (``except all`` both ways), leaving out the columns that differ from
one build to the next whatever the code (load times, build ids).

    .venv/bin/python scripts/compare_marts.py --base 4d84947
    .venv/bin/python scripts/compare_marts.py --base main --drops tests/fixtures/history

Exit 0 when every table is equal; 1 when a table differs, is missing on one
side or a build failed (each named). ``scoring_version`` differs by design
when a model's SQL or a rubric seed changes (it hashes them): leave it out
with ``--ignore-column scoring_version`` and name the change in the note.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

PROJECT = Path(__file__).resolve().parents[1]
SCHEMAS = ("marts", "ops", "rubric", "intermediate", "raw")
# Columns whose values belong to the build, not to the data: when a file was
# loaded or a set evaluated, which build did it.
VOLATILE = ("loaded_at", "observed_at", "evaluated_at", "built_at", "load_id", "invocation_id", "published_at")
# Build bookkeeping, not results: dbt's reuse state and the set ledger.
SKIPPED_TABLES = ("build_state.node_state", "build_state.built_sets")


def build(project: Path, drops: Path, work: Path, pythonpath: Path | None) -> tuple[Path, int]:
    """Build ``drops`` with the project at ``project`` into ``work``; the
    exit code (3, rejected input, and 4, a quality gate failed, are verdicts
    on the data, not failures of the build)."""
    db = work / "warehouse.duckdb"
    env = dict(os.environ)
    if pythonpath is not None:  # the revision's own agent_eval (its loaders)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    command = [
        sys.executable,
        "-m",
        "agent_eval.cli",
        "build",
        "--project-dir",
        str(project),
        "--db",
        str(db),
        "--drops",
        str(drops),
        "--reports",
        str(work / "reports"),
        "--no-reports",
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    (work / "build.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    return db, done.returncode


def tables(con: duckdb.DuckDBPyConnection, catalog: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for schema, table, column in con.execute(
        "select schema_name, table_name, column_name from duckdb_columns() "
        "where database_name = ? order by schema_name, table_name, column_index",
        [catalog],
    ).fetchall():
        if schema in SCHEMAS and f"{schema}.{table}" not in SKIPPED_TABLES:
            found.setdefault(f"{schema}.{table}", []).append(column)
    return found


def compare(base_db: Path, head_db: Path, ignored: set[str], renamed: dict[str, str] | None = None) -> list[str]:
    """One line per difference; empty when every table is equal. ``renamed``
    maps a base table to its new name in the working tree (a named rename:
    the two are compared with each other)."""
    problems: list[str] = []
    renamed = renamed or {}
    with duckdb.connect() as con:
        con.execute(f"attach '{base_db}' as base (read_only)")
        con.execute(f"attach '{head_db}' as head (read_only)")
        base, head = tables(con, "base"), tables(con, "head")
        base = {renamed.get(name, name): columns for name, columns in base.items()}
        old_name = {new: old for old, new in renamed.items()}
        for name in sorted(base.keys() - head.keys()):
            problems.append(f"{old_name.get(name, name)}: only in the base build")
        for name in sorted(head.keys() - base.keys()):
            problems.append(f"{name}: only in the working tree's build")
        for name in sorted(base.keys() & head.keys()):
            if base[name] != head[name]:
                problems.append(f"{name}: columns differ: {base[name]} against {head[name]}")
                continue
            columns = ", ".join(f'"{c}"' for c in base[name] if c not in ignored)
            sides = {"base": f"base.{old_name.get(name, name)}", "head": f"head.{name}"}
            counts = []
            for left, right in (("base", "head"), ("head", "base")):
                counts.append(
                    con.execute(
                        f"select count(*) from (select {columns} from {sides[left]} "
                        f"except all select {columns} from {sides[right]})"
                    ).fetchone()[0]
                )
            n_rows = con.execute(f"select count(*) from head.{name}").fetchone()[0]
            if counts != [0, 0]:
                problems.append(
                    f"{name}: {counts[0]} row(s) only in the base build, "
                    f"{counts[1]} only in the working tree's ({n_rows} rows)"
                )
            else:
                was = f" (was {old_name[name]})" if name in old_name else ""
                print(f"compare_marts: {name}{was}: {n_rows} rows, equal", flush=True)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the git revision to compare the working tree with")
    parser.add_argument("--drops", default=str(PROJECT / "data" / "drops"), help="drops folder (default: the samples)")
    parser.add_argument(
        "--ignore-column",
        action="append",
        default=[],
        help="also leave this column out (repeatable), e.g. scoring_version",
    )
    parser.add_argument(
        "--renamed",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="a table renamed on purpose (schema.table=schema.table, repeatable): compared with its new name",
    )
    parser.add_argument(
        "--new-table",
        action="append",
        default=[],
        help="a table added on purpose (schema.table, repeatable): not a difference",
    )
    parser.add_argument("--keep", help="keep both builds in this folder (default: a temporary one, removed)")
    args = parser.parse_args(argv)

    work = Path(args.keep or tempfile.mkdtemp(prefix="compare_marts_"))
    work.mkdir(parents=True, exist_ok=True)
    tree = work / "base_tree"
    try:
        subprocess.run(
            ["git", "-C", str(PROJECT), "worktree", "add", "--detach", "--force", str(tree), args.base],
            check=True,
            capture_output=True,
        )
        results = {}
        for side, project, pythonpath in (("base", tree, tree / "src"), ("head", PROJECT, None)):
            (work / side).mkdir(exist_ok=True)
            drops = work / side / "drops"  # each build its own copy: a build may write nothing there, but be sure
            shutil.rmtree(drops, ignore_errors=True)
            shutil.copytree(args.drops, drops, symlinks=True)  # a broken link is part of a night
            print(f"compare_marts: building {args.drops} with the {side} ({project})", flush=True)
            results[side] = build(project, drops, work / side, pythonpath)
        failed = [
            f"the {side} build failed (exit {code}; {work / side / 'build.log'})"
            for side, (_, code) in results.items()
            if code not in (0, 3, 4)
        ]
        codes = {side: code for side, (_, code) in results.items()}
        if codes["base"] != codes["head"]:
            failed.append(f"exit codes differ: base {codes['base']}, working tree {codes['head']}")
        renamed = dict(pair.split("=", 1) for pair in args.renamed)
        problems = failed or compare(
            results["base"][0], results["head"][0], set(VOLATILE) | set(args.ignore_column), renamed
        )
        problems = [p for p in problems if p not in {f"{t}: only in the working tree's build" for t in args.new_table}]
    finally:
        subprocess.run(
            ["git", "-C", str(PROJECT), "worktree", "remove", "--force", str(tree)], check=False, capture_output=True
        )
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    for problem in problems:
        print(f"compare_marts: DIFFERS: {problem}")
    print(
        f"compare_marts: {'every table equal' if not problems else f'{len(problems)} difference(s)'} "
        f"(base {args.base}, drops {args.drops})"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
