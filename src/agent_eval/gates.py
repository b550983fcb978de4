"""Quality gates after a build: which failures were gates, the gate results
from the warehouse, and a JUnit XML file of them for CI systems.

The gates themselves are dbt: seed `quality_gates`, mart
`marts.history_gate_results`, test `assert_quality_gates_pass`. This module
reads their outcome; it decides nothing.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import duckdb

from agent_eval.db import rows, scalar

GATE_TEST = "test.agent_eval.assert_quality_gates_pass"
# dbt's verdict on the input (tests/dbt/assert_no_rejected_input.sql): for a
# plain `dbt build`; `agent-eval build` reports the same as exit 3
REJECTED_INPUT_TEST = "test.agent_eval.assert_no_rejected_input"
VERDICT_TESTS = frozenset({GATE_TEST, REJECTED_INPUT_TEST})
JUNIT_FILE = "quality_gates.junit.xml"
FAILED_STATUSES = {"error", "fail", "runtime error"}
# gate statuses that fail the night (exit 4): a metric gate that failed, an
# expected series that did not arrive in time (seed expected_series)
GATE_FAILURES = ("fail", "stale")


def failed_nodes(target_dir: Path) -> list[str] | None:
    """unique_ids of the nodes that failed in dbt's last run_results.json,
    or None when there is no readable run_results.json."""
    path = target_dir / "run_results.json"
    try:
        results = json.loads(path.read_text(encoding="utf-8"))["results"]
    except (OSError, ValueError, KeyError):
        return None
    return [r["unique_id"] for r in results if str(r.get("status")).lower() in FAILED_STATUSES]


# a data test with this tag is a verdict on the night's input, like the
# rejected-input test (an imported run whose figures disagree with the ones
# its tool reported): the night is built and published, and exits 3
VERDICT_TAG = "verdict"


def tagged_verdicts(target_dir: Path) -> set[str]:
    """unique_ids of the data tests tagged VERDICT_TAG in dbt's manifest."""
    try:
        nodes = json.loads((target_dir / "manifest.json").read_text(encoding="utf-8"))["nodes"]
    except (OSError, ValueError, KeyError):
        return set()
    return {uid for uid, node in nodes.items() if uid.startswith("test.") and VERDICT_TAG in (node.get("tags") or [])}


def _not_verdicts(failed: list[str], target_dir: Path) -> list[str]:
    verdicts = VERDICT_TESTS | tagged_verdicts(target_dir)
    return [node for node in failed if node not in verdicts]


def broken_nodes(target_dir: Path) -> list[str] | None:
    """The failed nodes of dbt's last run that are not verdicts on the night
    (VERDICT_TESTS, tests tagged VERDICT_TAG): what means the build itself
    broke. None when there is no readable run_results.json."""
    failed = failed_nodes(target_dir)
    return None if failed is None else _not_verdicts(failed, target_dir)


def only_verdicts_failed(target_dir: Path) -> bool:
    """True when the last dbt run's only failures are verdicts on the night,
    the quality gates, the rejected-input test and the tests tagged
    VERDICT_TAG: every score was built, the night just did not pass (exit 4
    / 3 say which)."""
    failed = failed_nodes(target_dir)
    return bool(failed) and not _not_verdicts(failed, target_dir)


def failed_tagged_verdicts(target_dir: Path, db_path: Path) -> list[tuple[str, str]]:
    """(test name, what) of each row of the tests tagged VERDICT_TAG that
    warned or failed in dbt's last run: they store their rows
    (store_failures), and each row says in words what disagrees."""
    try:
        results = json.loads((target_dir / "run_results.json").read_text(encoding="utf-8"))["results"]
    except (OSError, ValueError, KeyError):
        return []
    alerts = [r for r in results if r["unique_id"].startswith("test.") and str(r.get("status")).lower() != "pass"]
    # dbt's manifest is read only on a night with a test that did not pass
    tagged = tagged_verdicts(target_dir) if alerts else set()
    found = []
    for r in alerts:
        if r["unique_id"] not in tagged or str(r.get("status")).lower() not in FAILED_STATUSES | {"warn"}:
            continue
        name = r["unique_id"].split(".")[2]
        relation = r.get("relation_name")
        lines: list[str] = []
        if relation:
            with contextlib.suppress(duckdb.Error), duckdb.connect(str(db_path), read_only=True) as con:
                lines = [str(row[0]) for row in con.execute(f"select * from {relation} order by 1").fetchall()]
        found += [(name, line) for line in lines] or [(name, " ".join(str(r.get("message") or "").split()))]
    return found


def read_results(db_path: Path) -> list[dict[str, Any]]:
    """Rows of marts.history_gate_results, failures first; [] when the
    table is not there (a build that stopped earlier)."""
    with duckdb.connect(str(db_path), read_only=True) as con:
        exists = scalar(
            con,
            "select count(*) from information_schema.tables "
            "where table_schema = 'marts' and table_name = 'history_gate_results'",
        )
        if not exists:
            return []
        return rows(
            con,
            "select * from marts.history_gate_results "
            "order by status not in ('fail', 'stale'), status, gate_id, set_id",
        )


def has_failures(results: list[dict[str, Any]]) -> bool:
    return any(row["status"] in GATE_FAILURES for row in results)


def write_junit(results: list[dict[str, Any]], path: Path) -> Path:
    """One <testsuite name="quality_gates"> with a <testcase> per (gate,
    set): <failure> for fail and stale, <skipped> for no_data."""
    failures = sum(r["status"] in GATE_FAILURES for r in results)
    skipped = sum(r["status"] == "no_data" for r in results)
    suites = ElementTree.Element(
        "testsuites",
        name="agent-eval",
        tests=str(len(results)),
        failures=str(failures),
        skipped=str(skipped),
        errors="0",
    )
    suite = ElementTree.SubElement(
        suites,
        "testsuite",
        name="quality_gates",
        tests=str(len(results)),
        failures=str(failures),
        skipped=str(skipped),
        errors="0",
    )
    for row in results:
        case = ElementTree.SubElement(
            suite, "testcase", classname=f"quality_gates.{row['agent']}", name=f"{row['metric']} [{row['set_id']}]"
        )
        props = ElementTree.SubElement(case, "properties")
        for key in ("metric_value", "min_score", "max_regression", "baseline_set_id", "delta"):
            if row.get(key) is not None:
                ElementTree.SubElement(props, "property", name=key, value=str(row[key]))
        if row["status"] in GATE_FAILURES:
            failure = ElementTree.SubElement(
                case,
                "failure",
                message=row["reason"] or "gate failed",
                type="freshness" if row["status"] == "stale" else "quality_gate",
            )
            failure.text = row["reason"]
        elif row["status"] == "no_data":
            ElementTree.SubElement(case, "skipped", message=row["reason"] or "no data")
    path.parent.mkdir(parents=True, exist_ok=True)
    tree = ElementTree.ElementTree(suites)
    ElementTree.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
    return path


def format_results(results: list[dict[str, Any]]) -> str:
    counts = {s: sum(r["status"] == s for r in results) for s in ("pass", "fail", "stale", "no_data")}
    lines = [
        f"quality gates: {counts['pass']} pass, {counts['fail']} fail, {counts['stale']} stale, "
        f"{counts['no_data']} no data"
    ]
    for row in results:
        if row["status"] != "pass":
            lines.append(f"  GATE {row['status'].upper()}: {row['reason']}")
    return "\n".join(lines)
