"""The morning summary (`agent-eval report --latest`) on a fixture pair of
drops: nights 2026-11-10 and 2026-11-11 of tests/fixtures/history (worked by
hand in test_history.py) with the engagement run `run-worked` of
tests/fixtures/engagement delivered on the same two nights.

The golden page, checked by hand:
  resume: stability 5 -> 55/12 = 4.58 (delta -5/12 = -0.417, interval
    -0.417 +- 2.364624 x 5/12 = [-1.402, 0.568]: within noise); intent and
    accuracy the same; latency unchanged. Gate resume_agent:stability_score
    passes (4.583 >= 2.5, -0.417 >= -1.5).
  flips: Q1 rounds 1/1 and 2/1 went pass -> fail (ok -> error, message
    "시간 초과"), nothing fail -> pass: b = 2, c = 0, McNemar p = 2 x 0.5^2 = 0.5.
  engagement run-worked: 0.85 (the source's worked example) -> 0.133333
    (like 5 vs 30 -> 1/6, comment 1 vs 10 -> 0.1): -0.717 <= -0.05 and
    no interval (one run): regressed; likewise each count similarity.
  flaky: Q1 is flaky in one set only (< 2): nothing listed.
  latency (night 2): 22 non-error items, errors at 1 s and 9 s -> p50 5.0.
Regenerate with AGENT_EVAL_UPDATE_GOLDEN=1 after a deliberate change, and
read the diff.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from agent_eval import charts, cli
from conftest import FIXTURES, PROJECT_DIR, SAMPLE_DROPS, Warehouse

GOLDEN = Path(__file__).parent / "golden" / "morning_2026-11-11.md"
NIGHTS = {"2026-11-10": "2026-11-01", "2026-11-11": "2026-11-02"}


@pytest.fixture(scope="module")
def pair(module_warehouse) -> Warehouse:
    wh = module_warehouse("morning")
    for night, engagement_night in NIGHTS.items():
        shutil.copytree(FIXTURES / "history" / night, wh.drops / night)
        shutil.copytree(
            FIXTURES / "engagement" / engagement_night / "engagement" / "run-worked",
            wh.drops / night / "engagement" / "run-worked",
        )
    # run-worked of 2026-11-01 has one line that is not JSON (agent-a line 7):
    # a rejected row, exit 3; no gate fails (that would be exit 4)
    assert wh.build(reports=True) == cli.EXIT_REJECTED
    return wh


def test_build_writes_the_morning_page_with_the_reports(pair):
    assert (pair.paths.reports_dir / "morning" / "2026-11-11.md").is_file()


def test_report_latest_matches_the_golden_page(pair, capsys):
    page = pair.paths.reports_dir / "morning" / "2026-11-11.md"
    page.unlink()
    assert cli.cmd_report(pair.paths, None, latest=True) == cli.EXIT_OK
    assert capsys.readouterr().out.strip() == str(page)
    text = page.read_text(encoding="utf-8")
    if os.environ.get("AGENT_EVAL_UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_the_overview_chart_is_a_png_in_hangul(pair, tmp_path):
    page = pair.paths.reports_dir / "morning" / "2026-11-11.md"
    assert (page.parent / "2026-11-11.overview.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with duckdb.connect(str(pair.paths.db_path), read_only=True) as con:
        chart = charts.render_chart(con, "2026-11-11", charts.MORNING_OVERVIEW, tmp_path / "o.png")
    # one bar per set of the night: resume 6 metrics within noise; engagement 3 regressed
    assert {"회귀", "잡음 이내", "개선", "6", "3", "지표 수"} <= set(chart.labels)  # seed verdict_labels
    assert charts.missing_glyphs("".join(chart.labels)) == ""


def test_every_link_of_the_morning_page_resolves(pair):
    page = pair.paths.reports_dir / "morning" / "2026-11-11.md"
    text = page.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert links, "the page links each set's report"
    for link in links:
        assert (page.parent / link).resolve().is_file(), link


# ---------------------------------------------------------------- the demo's rejected deliveries


def agent_section(page: str, heading: str) -> list[str]:
    """The lines of the morning page's agent section ``### heading``."""
    lines = page.splitlines()
    start = lines.index(f"### {heading}")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("#"))
    return [line for line in lines[start + 1 : end] if line.strip()]


def reason_label(code: str) -> str:
    with (PROJECT_DIR / "seeds" / "ops" / "delivery_issue_reasons.csv").open(encoding="utf-8") as seed:
        return {row["reason_code"]: row["label_ko"] for row in csv.DictReader(seed)}[code]


def test_the_demo_morning_page_names_each_rejected_delivery_in_its_agents_section(demo_warehouse):
    """The demo's night 2026-11-02 delivers three files that are rejected
    whole (data/drops): the summary dataset, whose second test case has no
    contexts (read from the file here), an engagement expected.json with no
    metric, and a resume CSV without the Raw JSON column. Each is a
    "거부됨" line in its agent's section, with the reason's label, code and
    message and the table that holds it."""
    page = (demo_warehouse.paths.reports_dir / "morning" / "2026-11-02.md").read_text(encoding="utf-8")
    dataset = json.loads((SAMPLE_DROPS / "2026-11-02" / "summary_broken_export.json").read_text(encoding="utf-8"))
    assert "contexts" in dataset["test_cases"][0] and "contexts" not in dataset["test_cases"][1]
    expected = {
        "보험 요약 (summary)": (
            "2026-11-02/summary_broken_export.json",
            "invalid_file_structure",
            "not a valid dataset: test_cases[1] lacks contexts",
        ),
        "좋아요/댓글 유사도 (engagement)": (
            "2026-11-02/engagement/sim-20261102-02/expected.json",
            "invalid_file_structure",
            "no metric in 'expected'",
        ),
        "지원자 관리 (resume_agent)": (
            "2026-11-02/resume_agent_broken_export.csv",
            "missing_column",
            "missing required column(s): Raw JSON",
        ),
    }
    for heading, (source_file, code, message) in expected.items():
        (line,) = [line for line in agent_section(page, heading) if source_file in line]
        assert line.startswith("- ❌ **거부됨 · rejected**"), line
        assert f"{reason_label(code)} (`{code}`)" in line and message in line
        assert line.endswith("· ops.rejected_files")
    # the summary agent delivered nothing else that night: its section is that one line
    assert len(agent_section(page, "보험 요약 (summary)")) == 1


def test_a_figure_without_clusters_prints_no_cluster_count(demo_warehouse):
    """A figure the tool reported with no items behind it (the demo's Every
    Eval Ever SimpleQA aggregate: no instance file, so no cluster) has no
    interval and nothing to count: the page prints the figure alone, not
    "클러스터 None개"; a figure of few clusters still says how many."""
    page = (demo_warehouse.paths.reports_dir / "morning" / "2026-11-02.md").read_text(encoding="utf-8")
    assert "SimpleQA" in page
    assert "클러스터 None" not in page
    assert re.search(r"\(클러스터 [1-4]개: 구간 생략\)", page)
