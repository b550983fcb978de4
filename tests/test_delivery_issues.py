"""What is not in the scores is shown where owners look: the morning page and
the viewer's overview list, per agent, the rejected files and rows, the
withdrawn deliveries and the expected series that did not arrive
(ops.delivery_issues), with the reason's Korean label and code.

Fixture drops `basic` + `night2`: 2026-11-01/resume_agent_basic.csv and
2026-11-02/resume_agent_basic.csv (one resume series). On a copy of the
project, seed expected_series expects that series daily (max 1 day) and a
recruit series that was never delivered; the operator withdraws the
2026-11-02 file; the night is built as of 2026-11-03 with the singular
tests (the stale gates fail the night: exit 4). Worked out by hand:

- the newest night with a set is 2026-11-01 (2026-11-02's only set is
  withdrawn): the morning page is 2026-11-01.md, and it also shows the
  withdrawal of the later night, which has no page of its own;
- the resume series' newest set is 2026-11-01: 2 calendar days old on
  2026-11-03 > 1 -> late (`series_late`);
- recruit_agent_nightly.jsonl never arrived -> `series_never_arrived`.
"""

from __future__ import annotations

import csv
import re
from typing import Any

import duckdb
import pytest

from agent_eval import cli, withdraw
from agent_eval.viewer import create_app
from conftest import PROJECT_DIR, built_on_project_copy

HEADER = "agent,series_id,cadence,max_age_days,note\n"
RESUME_SERIES = "resume_agent_basic.csv"
RECRUIT_SERIES = "recruit_agent_nightly.jsonl"
WITHDRAWN = "2026-11-02/resume_agent_basic.csv"
REASON = "a rehearsal export, not a real run"


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Any:
    paths, _ = built_on_project_copy(tmp_path_factory, ("basic", "night2"), singular_tests=True)
    (paths.project_dir / "seeds" / "history" / "expected_series.csv").write_text(
        HEADER + f"resume_agent,{RESUME_SERIES},daily,1,every night\n"
        f"recruit_agent,{RECRUIT_SERIES},daily,1,never delivered\n",
        encoding="utf-8",
    )
    withdraw.record(paths.db_path, WITHDRAWN, reason=REASON, user="owner-test")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENT_EVAL_AS_OF", "2026-11-03")
        code = cli.cmd_build(paths, reports=True)
    return paths, code


def labels() -> dict[str, str]:
    seed = PROJECT_DIR / "seeds" / "ops" / "delivery_issue_reasons.csv"
    with seed.open(encoding="utf-8") as handle:
        return {row["reason_code"]: row["label_ko"] for row in csv.DictReader(handle)}


def section(page: str, heading: str) -> str:
    """The text of the morning page's agent section ``heading`` (### ...)."""
    start = page.index(f"### {heading}\n")
    end = min(i for i in (page.find("\n### ", start + 1), page.find("\n## ", start + 1)) if i != -1)
    return page[start:end]


def line_with(text: str, needle: str) -> str:
    (found,) = [line for line in text.splitlines() if needle in line]
    return found


def test_the_night_fails_on_the_stale_series_and_still_builds_what_owners_read(night):
    """The verdict tests fail (stale series, rejected rows) after
    ops.delivery_issues is built, so the night's issues are published. The
    2026-11-01 file's rejected records, read off the fixture: line 17 has
    Track 9 (no such track), line 18 has 3 fields of 14; 16 records. The
    withdrawn 2026-11-02 file has 4."""
    paths, code = night
    assert code == cli.EXIT_GATE_FAILED
    assert (paths.reports_dir / "morning" / "2026-11-01.md").is_file()
    assert not (paths.reports_dir / "morning" / "2026-11-02.md").exists()  # its only set was withdrawn
    with duckdb.connect(str(paths.published_db), read_only=True) as con:
        found = con.execute(
            "select issue, subject, reason_code, agent, drop_date::varchar, n_records, n_rejected_rows, "
            "first_line_number, is_delivery_rejected from ops.delivery_issues order by all"
        ).fetchall()
    assert found == [
        ("missing_series", RECRUIT_SERIES, "series_never_arrived", "recruit_agent", None, None, None, None, False),
        ("missing_series", RESUME_SERIES, "series_late", "resume_agent", None, None, None, None, False),
        (
            "rejected_rows",
            "2026-11-01/resume_agent_basic.csv",
            "invalid_track",
            "resume_agent",
            "2026-11-01",
            16,
            1,
            17,
            False,
        ),
        (
            "rejected_rows",
            "2026-11-01/resume_agent_basic.csv",
            "ragged_row",
            "resume_agent",
            "2026-11-01",
            16,
            1,
            18,
            False,
        ),
        ("withdrawn", WITHDRAWN, "withdrawn", "resume_agent", "2026-11-02", 4, None, None, False),
    ]


def test_the_morning_page_shows_missing_series_in_their_agents_sections(night):
    paths, _ = night
    page = (paths.reports_dir / "morning" / "2026-11-01.md").read_text(encoding="utf-8")
    names = labels()
    recruit = line_with(section(page, "H.채용 (recruit_agent)"), RECRUIT_SERIES)
    assert "도착하지 않은 시리즈 · missing" in recruit
    assert f"{names['series_never_arrived']} (`series_never_arrived`)" in recruit
    assert "no set has ever arrived" in recruit and "marts.history_gate_results" in recruit
    resume = line_with(section(page, "지원자 관리 (resume_agent)"), "도착하지 않은 시리즈")
    assert f"{names['series_late']} (`series_late`)" in resume
    # newest set 2026-11-01, 2 days old on 2026-11-03 (allowed 1)
    assert "마지막 세트 2026-11-01/resume_agent_basic.csv (2026-11-01), 2일 경과" in resume
    assert "is 2 day(s) old on 2026-11-03, allowed 1" in resume


def test_the_morning_page_shows_the_withdrawn_delivery_with_who_and_why(night):
    paths, _ = night
    page = (paths.reports_dir / "morning" / "2026-11-01.md").read_text(encoding="utf-8")
    withdrawn = line_with(section(page, "지원자 관리 (resume_agent)"), WITHDRAWN)
    assert "철회됨 · withdrawn" in withdrawn
    assert f"{labels()['withdrawn']} (`withdrawn`)" in withdrawn
    assert REASON in withdrawn and "owner-test" in withdrawn and "ops.load_log" in withdrawn


def test_the_overview_shows_the_missing_series_and_the_withdrawn_delivery_per_agent(night):
    paths, _ = night
    html = create_app(paths.published_db).test_client().get("/").get_data(as_text=True)
    assert "<small>2026-11-01</small>" in html  # the newest date with a set
    agents = dict(re.findall(r'<div class="issue-agent" data-agent="(\w+)">(.*?)</div>', html, re.S))
    recruit = re.findall(r'data-issue="(\w+)">(.*?)</li>', agents["recruit_agent"], re.S)
    assert [issue for issue, _ in recruit] == ["missing_series"]
    assert RECRUIT_SERIES in recruit[0][1] and "series_never_arrived" in recruit[0][1]
    assert "도착하지 않음 · missing" in recruit[0][1]
    resume = dict(re.findall(r'data-issue="(\w+)">(.*?)</li>', agents["resume_agent"], re.S))
    assert "series_late" in resume["missing_series"]
    assert f'href="/series?id={RESUME_SERIES}"' in resume["missing_series"]  # its series page
    assert "철회됨 · withdrawn" in resume["withdrawn"] and WITHDRAWN in resume["withdrawn"]
    assert REASON in resume["withdrawn"] and "owner-test" in resume["withdrawn"]
    # withdrawn, not rejected: no rejected card
    assert "data-rejected=" not in html
