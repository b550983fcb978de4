"""Escaping of agent text in markdown tables, and the display labels of
the codes the tables hold (reason codes, verdicts)."""

import csv
import re
from pathlib import Path

import yaml

from agent_eval.report import md_cell, md_labelled


def test_pipes_newlines_and_html_are_escaped():
    assert md_cell("a|b") == "a\\|b"
    assert md_cell("줄1\n줄2\r\n줄3\r줄4") == "줄1<br>줄2<br>줄3<br>줄4"
    assert md_cell("<script>alert('x')</script> & <b>") == "&lt;script&gt;alert('x')&lt;/script&gt; &amp; &lt;b&gt;"
    assert md_cell(None) == ""
    assert md_cell(3) == "3"


def test_a_table_row_with_hostile_text_keeps_its_cell_count():
    hostile = "| 둘 | 셋 |\n| --- |\n<br>"
    row = f"| {md_cell('q1')} | {md_cell(hostile)} |"
    # unescaped pipes would add cells
    assert row.replace("\\|", "").count("|") == 3


def test_backticks_in_free_text_never_open_a_code_span():
    # inside a code span the <br> of a line break would show literally
    assert md_cell("run `ls`\nthen `cat`") == "run \\`ls\\`<br>then \\`cat\\`"
    assert "`" not in md_cell("``` fenced ```").replace("\\`", "")


def test_no_template_puts_a_cell_value_in_a_code_span():
    from agent_eval.report import TEMPLATES

    for template in TEMPLATES.glob("*.j2"):
        text = template.read_text(encoding="utf-8")
        # a cell value is escaped for a table cell: inside a code span its escapes would show
        assert "| cell }}`" not in text, template


# ---------------------------------------------------------------- display labels
# Codes the tables hold (reason codes, verdicts) are shown with their labels
# from seeds: every code the warehouse can write must have a row.

PROJECT = Path(__file__).parent.parent
CODE = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*"
# the loaders' messages with a code-like prefix that are no row's reason:
# a whole file's reason (ops.rejected_files.reject_reason, free text) and
# csv_load's note that DuckDB's reader failed (the exact parser takes over)
NOT_ROW_REASONS = {"undecodable", "duckdb"}


def seed(path: str, key: str) -> dict[str, dict[str, str]]:
    with open(PROJECT / path, encoding="utf-8", newline="") as f:
        return {row[key]: row for row in csv.DictReader(f)}


def loader_reason_codes() -> dict[str, set[str]]:
    """The code of every reject reason the Python loaders write: the
    `<code>: <detail>` literals of the ingest package and the agents'
    readers (ops.rejected_rows.reason is the part before the colon)."""
    found: dict[str, set[str]] = {}
    for path in [*PROJECT.glob("src/agent_eval/ingest/*.py"), *PROJECT.glob("src/agent_eval/agents/*/reader.py")]:
        for match in re.finditer(rf"""(?<![\w.])[fr]?["']({CODE}): """, path.read_text(encoding="utf-8")):
            found.setdefault(match.group(1), set()).add(str(path.relative_to(PROJECT)))
    return {code: where for code, where in found.items() if code not in NOT_ROW_REASONS}


def case_blocks(sql: str) -> list[tuple[str, str | None]]:
    """Each `case ... end` of a SQL text (nested ones too) with the alias it
    is given (`end as reason`, `end) as reject_reason`), if any."""
    blocks, starts = [], []
    for token in re.finditer(r"\bcase\b|\bend\b", sql):
        if token.group() == "case":
            starts.append(token.start())
        elif starts:
            start = starts.pop()
            alias = re.match(r"[\s)]*as\s+(\w+)", sql[token.end() : token.end() + 80])
            blocks.append((sql[start : token.end()], alias.group(1) if alias else None))
    return blocks


# a code a `case` gives: then / else '<code>' or '<code>: <detail>'
CASE_CODE = re.compile(rf"\b(?:then|else)\s+(?:concat\(\s*)?'({CODE})(?::[^']*)?'")


def sql_reason_codes() -> dict[str, set[str]]:
    """The codes the models write into a reason column: the literals of
    every `case` aliased `*reason` (reject_reason, reason, status_reason,
    accuracy_reason, review_reason) and of the macros that compute one
    (status_reason; not status_from_reason, which gives a status)."""
    found: dict[str, set[str]] = {}
    for path in PROJECT.glob("models/**/*.sql"):
        for block, alias in case_blocks(path.read_text(encoding="utf-8")):
            if alias and alias.endswith("reason"):
                for match in CASE_CODE.finditer(block):
                    found.setdefault(match.group(1), set()).add(f"{path.name} ({alias})")
    for path in PROJECT.glob("macros/**/*.sql"):
        text = path.read_text(encoding="utf-8")
        for macro in re.finditer(r"\{%-?\s*macro\s+(\w+)\(.*?\{%-?\s*endmacro", text, re.S):
            if macro.group(1).endswith("reason") and "_from_" not in macro.group(1):
                for match in CASE_CODE.finditer(macro.group(0)):
                    found.setdefault(match.group(1), set()).add(f"{path.name} ({macro.group(1)})")
    return found


def test_the_code_collectors_find_the_codes_they_are_meant_to():
    # a few codes written by hand in each place, so a collector that finds
    # nothing cannot pass the coverage test below
    assert {"ragged_row", "malformed_csv", "record_too_large", "invalid_json", "duplicate_sample"} <= set(
        loader_reason_codes()
    )
    sql = sql_reason_codes()
    assert {"invalid_track", "missing_query_id", "error_column", "partial_keyword", "value_mismatch"} <= set(sql)
    assert {"no_checks", "needs_followup_untagged", "missing_samples_file", "item_error"} <= set(sql)
    assert not {"ok_status", "error_row", "not_act", "counted", "empty", "partial"} & set(sql)  # statuses, outcomes


def test_every_reason_code_the_warehouse_writes_has_a_label_and_every_label_a_code():
    labels = seed("seeds/common/reason_labels.csv", "reason")
    emitted = loader_reason_codes() | sql_reason_codes()
    missing = {code: sorted(where) for code, where in emitted.items() if code not in labels}
    assert missing == {}, "add these codes to seeds/common/reason_labels.csv"
    assert sorted(set(labels) - set(emitted)) == [], "codes no loader or model writes any more"
    assert all(row["label_ko"].strip() and row["explanation"].strip() for row in labels.values())


def test_every_verdict_the_marts_accept_has_korean_and_english_labels():
    accepted: set[str] = set()
    for path in PROJECT.glob("models/marts/history/*.yml"):
        for expression in re.findall(r"expression:\s*verdict in \(([^)]*)\)", path.read_text(encoding="utf-8")):
            accepted |= set(re.findall(r"'(\w+)'", expression))
    labels = seed("seeds/history/verdict_labels.csv", "verdict")
    assert accepted == {"regressed", "improved", "within_noise"} == set(labels)
    assert {v: (row["label_ko"], row["label_en"]) for v, row in labels.items()} == {
        "within_noise": ("잡음 이내", "within noise"),
        "regressed": ("회귀", "regressed"),
        "improved": ("개선", "improved"),
    }
    seeds_yml = yaml.safe_load((PROJECT / "seeds" / "history" / "_history__seeds.yml").read_text(encoding="utf-8"))
    assert any(s["name"] == "verdict_labels" for s in seeds_yml["seeds"])


def test_a_code_in_a_table_cell_shows_its_label_first():
    assert md_labelled("invalid_track", "Track 값 오류") == "Track 값 오류 (`invalid_track`)"
    assert md_labelled("invalid_track", None) == "`invalid_track`"  # a code the seed does not know
    assert md_labelled("a|b `c`", "x|y") == "x\\|y (a\\|b \\`c\\`)"  # not a code: escaped, no code span
    assert md_labelled(None, "label") == ""
