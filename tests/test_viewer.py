"""The web viewer (`agent-eval serve`) on the bundled sample drops.

One warehouse for the module: the sample drops, built and published (a
session snapshot), served by a real waitress server in a thread. While a
client loops over two pages, a second night (tests/fixtures/viewer_hostile:
one resume file whose question, answer and error hold HTML, markdown and
pipes) is built and published: the loop must never see an error, the build
must not wait for the viewer, and the next request must see the new file.

The hostile file's expectations are worked out by hand from SPEC 3.2 / 3.3
(header = line 1):

    line  query round track  status   why                               pass
    2     H1    1/1   1      ok       a message, no keyword             yes
    3     H1    2/1   1      error    오류 column non-blank             no
    4     H2    1/1   2      partial  message contains 알려주           yes
    5     H2    2/1   2      empty    blank message, empty dataUIList   no
"""

from __future__ import annotations

import csv
import html
import io
import itertools
import os
import re
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest
import waitress

from agent_eval import cli
from agent_eval.viewer import create_app
from agent_eval.viewer.app import fmt_date
from agent_eval.viewer.snapshots import Snapshots
from conftest import PROJECT_DIR as PROJECT
from conftest import exposure_parents, reads_recorded

HOSTILE = "2026-11-02/resume_agent_hostile.csv"
RESUME = "2026-11-01/resume_agent_nightly.csv"
RESUME_NIGHT2 = "2026-11-02/resume_agent_nightly.csv"
SUMMARY = "2026-11-01/summary_agent_notes.json"
ENGAGEMENT = "2026-11-01/engagement/sim-20261101-01"
RECRUIT = "2026-11-01/recruit_agent_nightly.jsonl"
EXCEL = "2026-11-01/resume_agent_excel_export.csv"  # another series of the resume agent
REJECTED_SUMMARY = "2026-11-02/summary_broken_export.json"
LOOP_PAGES = ("/", f"/set?id={RESUME}")


@dataclass
class RequestLoop:
    """GETs pages in a thread until stopped; records every status and error."""

    base: str
    paths: tuple[str, ...]
    statuses: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            for path in self.paths:
                try:
                    with urllib.request.urlopen(self.base + path, timeout=30) as response:
                        response.read()
                        self.statuses.append(response.status)
                except urllib.error.HTTPError as err:
                    self.statuses.append(err.code)
                except OSError as err:  # connection refused, timeout
                    self.errors.append(repr(err))


@dataclass
class Served:
    wh: Any
    app: Any
    base: str
    loop: RequestLoop
    first_code: int
    build_code: int
    sets_before: set[str]
    old_snapshot_sets: set[str]

    def get(self, path: str) -> Any:
        return self.app.test_client().get(path)


def published_sets(path: Path) -> set[str]:
    with duckdb.connect(str(path), read_only=True) as con:
        return {r[0] for r in con.execute("select distinct set_id from marts.history_set_metrics").fetchall()}


@pytest.fixture(scope="module")
def served(module_built: Any) -> Any:
    wh, first_code = module_built("samples")
    app = create_app(wh.paths.published_db)
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.effective_port}"
    sets_before = published_sets(wh.paths.published_db)
    snapshots: Snapshots = app.extensions["agent_eval_snapshots"]
    held = snapshots.acquire()  # a reader in the middle of a request, across the publish
    loop = RequestLoop(base, LOOP_PAGES)
    looping = threading.Thread(target=loop.run, daemon=True)
    looping.start()
    try:
        while not loop.statuses and not loop.errors:
            time.sleep(0.05)
        wh.add_fixture("viewer_hostile")
        # the module reads the published marts, which dbt's data tests do
        # not write: the night leaves them out
        build_code = wh.build(data_tests=False)
        time.sleep(0.3)  # a few requests after the publish
    finally:
        loop.stop.set()
        looping.join(60)
    cur = held.cursor()
    old_snapshot_sets = {r[0] for r in cur.execute("select distinct set_id from marts.history_set_metrics").fetchall()}
    cur.close()
    snapshots.release(held)
    yield Served(wh, app, base, loop, first_code, build_code, sets_before, old_snapshot_sets)
    server.close()


def body(response: Any) -> str:
    return response.get_data(as_text=True)


DOWNLOAD = re.compile(r"^(/download/\w+)\.(?:csv|parquet)(?=\?|$)")  # a download's table and format


def links(html: str, prefix: str) -> list[str]:
    return [m.replace("&amp;", "&") for m in re.findall(rf'href="({re.escape(prefix)}[^"#]*)', html)]


# ---------------------------------------------------------------- publishing while serving


def test_a_build_publishes_while_the_viewer_serves_and_the_next_request_sees_it(served):
    assert served.first_code == cli.EXIT_REJECTED  # the sample's deliberate bad input
    assert served.build_code == cli.EXIT_REJECTED  # built and published despite the open viewer
    assert not served.loop.errors
    assert served.loop.statuses and set(served.loop.statuses) == {200}
    assert HOSTILE not in served.sets_before
    assert HOSTILE in published_sets(served.wh.paths.published_db)
    overview = body(served.get("/"))
    assert HOSTILE in overview
    # the reader that held its snapshot across the publish kept the old file
    assert served.old_snapshot_sets == served.sets_before


# ---------------------------------------------------------------- pages


def test_overview_has_a_card_per_set_of_the_newest_drop_linking_to_its_pages(served):
    response = served.get("/")
    assert response.status_code == 200
    html = body(response)
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        newest = con.execute(
            "select distinct set_id from marts.history_set_metrics "
            "where drop_date = (select max(drop_date) from marts.history_set_metrics)"
        ).fetchall()
    cards = re.findall(r'<section class="card[^"]*" data-set="([^"]+)"', html)
    assert sorted(cards) == sorted(r[0] for r in newest)
    assert "2026-11-02" in html and "지원자 관리" in html and "H.채용" in html
    for set_id in cards:
        # a set that is a part of a file (<file>#<part>) has its '#' escaped
        assert f"/set?id={set_id.replace('#', '%23')}" in html.replace("%2F", "/")
    assert "/compare?set=" in html and "/series?id=" in html
    assert 'name="date"' in html  # another day can be chosen
    older = body(served.get("/?date=2026-11-01"))
    assert SUMMARY in older and HOSTILE not in older


def test_a_rejected_delivery_is_a_card_in_its_agents_place_for_its_date(served):
    """The demo's summary agent delivered one file on 2026-11-02,
    summary_broken_export.json, rejected whole (its second test case has no
    contexts): the overview of that date has a "거부됨 · rejected" card for
    it among the agents' cards (ordered by agent), with the reason; the
    other rejected files of the night (resume, engagement) likewise. The
    overview of 2026-11-01, when the summary set was scored, has none."""
    html = body(served.get("/?date=2026-11-02"))
    cards = re.findall(
        r'<section class="card[^"]*" data-(set|rejected)="([^"]+)">\s*<h2><span class="agent">([^<]+)</span>', html
    )
    rejected = {name: label for kind, name, label in cards if kind == "rejected"}
    assert rejected == {
        REJECTED_SUMMARY: "보험 요약",
        "2026-11-02/resume_agent_broken_export.csv": "지원자 관리",
        "2026-11-02/engagement/sim-20261102-02/expected.json": "좋아요/댓글 유사도",
    }
    # in its agent's place: each agent's cards are next to each other
    runs = [label for label, _ in itertools.groupby(label for _, _, label in cards)]
    assert len(runs) == len(set(runs)), runs
    card = html[html.index(f'data-rejected="{REJECTED_SUMMARY}"') :].split("</section>", 1)[0]
    assert "거부됨 · rejected" in card
    assert "test_cases[1] lacks contexts" in card and "(<code>invalid_file_structure</code>)" in card
    assert "ops.rejected_files" in card
    # the same file in the summary agent's section of the page
    section = html[html.index('data-agent="summary"') :].split("</div>", 1)[0]
    assert REJECTED_SUMMARY in section and "거부됨 · rejected" in section
    older = body(served.get("/?date=2026-11-01"))
    assert "data-rejected=" not in older and REJECTED_SUMMARY not in older


def test_item_table_filters_sort_and_page_on_the_server(served):
    def lines(query: str) -> list[int]:
        response = served.get(f"/set?id={HOSTILE}&{query}")
        assert response.status_code == 200, body(response)
        return [int(n) for n in re.findall(r'class="item-link" href="[^"]*">(\d+)</a>', body(response))]

    assert lines("") == [2, 3, 4, 5]
    assert lines("status=error") == [3]
    assert lines("status=empty") == [5]
    assert lines("status=partial") == [4]
    assert lines("result=fail") == [3, 5]
    assert lines("result=pass") == [2, 4]
    assert lines("round=2/1") == [3, 5]
    assert lines("segment=2") == [4, 5]
    assert lines("q=alert") == [2]  # the answer; line 3's alert is in its error, not searched
    assert lines("q=PIPE") == [2, 3]  # the question, case-insensitive
    assert lines("q=알려주") == [4]
    assert lines("status=ok&result=fail") == []
    assert lines("sort=latency_sec&dir=desc") == [5, 4, 3, 2]  # 25, 9, 4, 3 seconds


def test_set_page_shows_the_score_distribution_with_every_bin(served):
    # the hostile file by hand: ok 5, error 0, partial 4, empty 0 (SPEC 3.3),
    # in the report chart's bins (0.5 wide, the last one closed): 5 in
    # [4.5, 5], 4 in [4, 4.5), the two 0s in [0, 0.5); the seven bins
    # between are drawn with 0, not left out
    html = body(served.get(f"/set?id={HOSTILE}"))
    section = html.split('id="score-distribution"', 1)[1].split("</section>", 1)[0]
    counts = re.findall(r'<td class="n">([\d.]+)–([\d.]+)</td><td class="n">(\d+)</td>', section)
    by_bin = {9: "1", 8: "1", 0: "2"}
    assert counts == [(f"{b * 0.5:.2f}", f"{(b + 1) * 0.5:.2f}", by_bin.get(b, "0")) for b in range(9, -1, -1)]


def test_set_page_draws_every_latency_bin_of_each_track(served):
    # the hostile file by hand: Track 1 answered in 3 s and 4 s (lines 2, 3),
    # Track 2 in 9 s and 25 s (lines 4, 5); both tracks use the single
    # rubric, whose bins are 1 s wide and closed on the right: (2, 3] is
    # bin 2, (3, 4] bin 3, (8, 9] bin 8, (24, 25] bin 24; every other bin
    # of the rubric is drawn with 0, and no item lacks a latency
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        n_bins = con.execute(
            "select count(*) from marts.rpt_latency_histogram_bins where latency_rubric = 'single'"
        ).fetchone()[0]
    html = body(served.get(f"/set?id={HOSTILE}"))
    section = html.split('id="latency-histograms"', 1)[1].split("</section>", 1)[0]
    panels = re.findall(
        r'<figcaption>([^<]*)<.*?no latency (\d+)</span>.*?<div class="hist-bars">(.*?)</div>', section, re.S
    )
    expected = {"Track 1 (single)": {2: 1, 3: 1}, "Track 2 (single)": {8: 1, 24: 1}}
    assert [title.strip() for title, _, _ in panels] == list(expected)
    for title, n_missing, bars in panels:
        drawn = [(int(b), int(n)) for b, n in re.findall(r'data-bin="(-?\d+)" data-n="(\d+)"', bars)]
        assert [b for b, _ in drawn] == list(range(n_bins)) and n_bins > 20
        assert {b: n for b, n in drawn if n} == expected[title.strip()]
        assert n_missing == "0"


def test_item_table_pages_through_every_item_once(served):
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        expected = sorted(
            r[0]
            for r in con.execute(
                "select line_number from marts.resume_item_scores where set_id = ?", [RESUME]
            ).fetchall()
        )
    assert len(expected) > 25
    seen: list[int] = []
    page = 1
    while True:
        html = body(served.get(f"/set?id={RESUME}&per_page=25&page={page}"))
        found = [int(n) for n in re.findall(r'class="item-link" href="[^"]*">(\d+)</a>', html)]
        assert len(found) <= 25
        seen += found
        if 'rel="next"' not in html:
            break
        page += 1
    assert sorted(seen) == expected and len(seen) == len(set(seen))
    assert f"{len(expected)} matching" in body(served.get(f"/set?id={RESUME}"))


def test_agent_text_is_escaped_everywhere(served):
    pages = [
        f"/set?id={HOSTILE}",
        f"/item?set={HOSTILE}&line=2",
        f"/item?set={HOSTILE}&line=3",
        f"/set?id={HOSTILE}&q=alert",
    ]
    for path in pages:
        html = body(served.get(path))
        assert "<script>alert(1)" not in html, path
        assert "<img src=x" not in html, path
        assert "<b>질의</b>" not in html, path
    item = body(served.get(f"/item?set={HOSTILE}&line=2"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in item  # shown as text
    assert "&lt;b&gt;질의&lt;/b&gt; | pipe | **bold**" in item
    assert "&lt;i&gt;기대&lt;/i&gt;" in item
    error = body(served.get(f"/item?set={HOSTILE}&line=3"))
    assert "timeout &lt;img src=x onerror=alert(2)&gt;" in error


def test_item_page_shows_question_answer_raw_json_and_the_other_round(served):
    html = body(served.get(f"/item?set={HOSTILE}&line=4"))
    assert "H2 질의" in html and "기간을 알려주시면 `code` | a | b" in html
    assert "partial" in html
    # Raw JSON pretty-printed (indented, Korean kept), not the one-line original
    assert "&#34;responseTimeSec&#34;: 9" in html or "&quot;responseTimeSec&quot;: 9" in html
    assert "\n  &#34;assistantMessage&#34;" in html or "\n  &quot;assistantMessage&quot;" in html
    # the same query's other round: line 5, and only it
    others = html.split("other rounds", 1)[1].split("<table", 1)[1]
    assert re.findall(r'line=(\d+)"', others) == ["5"]


def test_recruit_item_page_lists_each_check_with_outcome_and_reason(served):
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        line, n_checks, n_failed = con.execute(
            "select line_number, count(*), count(*) filter (where not is_passed) from marts.recruit_check_results "
            "where set_id = ? group by line_number order by count(*) filter (where not is_passed) desc, "
            "line_number limit 1",
            [RECRUIT],
        ).fetchone()
        reasons = [
            r[0]
            for r in con.execute(
                "select reason from marts.recruit_check_results where set_id = ? and line_number = ? "
                "order by check_seq",
                [RECRUIT, line],
            ).fetchall()
        ]
    html = body(served.get(f"/item?set={RECRUIT}&line={line}"))
    table = html.split('<table class="checks">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr class="(pass|fail)">', table)
    assert len(rows) == n_checks and rows.count("fail") == n_failed >= 1
    for reason in reasons:
        assert reason in table


def test_three_clicks_from_the_overview_to_a_failing_resume_item(served):
    overview = body(served.get("/?date=2026-11-01"))
    set_link = next(href for href in links(overview, "/set?id=") if "resume_agent_nightly" in href)
    set_page = body(served.get(set_link))  # click 1
    filtered = body(served.get(f"{set_link}&result=fail"))  # click 2: the result filter
    item_link = links(filtered, "/item?set=")[0]
    item = body(served.get(item_link))  # click 3
    assert "Items" in set_page and ">fail<" in item and "Raw JSON" in item


def test_series_page_has_a_chart_per_metric_and_a_date_range(served):
    series_id = "resume_agent_nightly.csv"
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        metrics = con.execute(
            "select count(distinct metric) from marts.history_metric_trends where series_id = ?", [series_id]
        ).fetchone()[0]
    html = body(served.get(f"/series?id={series_id}"))
    blocks = re.findall(r'<script type="application/json" id="chart-\d+">(.*?)</script>', html, re.S)
    assert len(blocks) == metrics >= 4
    assert '"dates": ["2026-11-01", "2026-11-02"]' in blocks[0]
    one_day = body(served.get(f"/series?id={series_id}&from=2026-11-02&to=2026-11-02"))
    assert '"dates": ["2026-11-02"]' in one_day
    assert served.get(f"/series?id={series_id}&from=2026-11-02&to=2026-11-01").status_code == 400


def test_summary_page_cards_thresholds_filters_and_review_queue(served):
    html = body(served.get(f"/set?id={SUMMARY}"))
    cards = re.findall(r'data-metric="(summary_[a-z_]+)"', html)
    assert cards == ["summary_accuracy", "summary_risk_coverage", "summary_non_definitive", "summary_needs_followup"]
    assert "threshold" in html and "Review queue" in html and "Rule snapshot" in html
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        failing = {
            r[0]
            for r in con.execute(
                "select case_id from marts.summary_case_scores where set_id = ? and not is_summary_accuracy_pass",
                [SUMMARY],
            ).fetchall()
        }
        total = con.execute("select count(*) from marts.summary_case_scores where set_id = ?", [SUMMARY]).fetchone()[0]
    below = body(served.get(f"/set?id={SUMMARY}&below=summary_accuracy"))
    table = below.split('<h2 id="cases">', 1)[1].split("</table>", 1)[0]
    shown = set(re.findall(r'<tr class="(?:pass|fail)">\s*<td>([^<]+)</td>', table))
    assert shown == failing and len(failing) < total
    tagged = body(served.get(f"/set?id={SUMMARY}&tag=deductible"))
    assert tagged.count("<tr class=") < html.count("<tr class=")


def test_engagement_and_compare_pages(served):
    runs = body(served.get("/engagement"))
    assert "sim-20261101-01" in runs and "sim-20261102-01" in runs
    run = body(served.get(f"/set?id={ENGAGEMENT}"))
    assert "Expected vs actual" in run and "Per persona" in run
    compare = body(served.get(f"/compare?set={RESUME_NIGHT2}"))
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        b, c = con.execute(
            "select n_pass_fail, n_fail_pass from marts.history_flip_tests where set_id = ?", [RESUME_NIGHT2]
        ).fetchone()
    # "vs baseline" is the compare with the baseline as the reference (A)
    assert f'<b>A (reference)</b> <a href="/set?id={RESUME}">' in compare
    assert f"<b>{b} pass→fail</b> · {c} fail→pass" in compare and b > 0
    assert "Holm's correction across the metrics" in compare
    # pass->fail rows first, then fail->pass, each with both answers
    classes = re.findall(r'<tr class="(fail|pass|other)">', compare.split("<h3>Changed", 1)[1])
    assert classes[: b + c] == ["fail"] * b + ["pass"] * c
    first = compare.split("<h3>Changed", 1)[1].split('<tr class="fail">', 1)[1].split("</tr>", 1)[0]
    assert first.count('<td class="text">') == 2


def test_compare_any_sets_from_a_set_page(served):
    """The set page offers every set of its agent, the baseline preselected;
    the compare of two series' sets pairs their items and counts the rest."""
    page = body(served.get(f"/set?id={RESUME_NIGHT2}"))
    picker = page.split('class="compare-picker"', 1)[1].split("</form>", 1)[0]
    options = re.findall(r'<option value="([^"]+)"( selected)?', picker)
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        same_agent = {
            r[0]
            for r in con.execute(
                "select distinct set_id from marts.history_set_metrics where agent = 'resume_agent' and set_id <> ?",
                [RESUME_NIGHT2],
            ).fetchall()
        }
        metrics = con.execute(
            "select metric, delta, p_holm from marts.compare_metrics(?, ?) order by metric_order", [RESUME, EXCEL]
        ).fetchall()
        n_a, n_b = (
            con.execute("select count(*) from marts.history_items where set_id = ?", [s]).fetchone()[0]
            for s in (RESUME, EXCEL)
        )
    assert {o for o, _ in options} == same_agent and RECRUIT not in picker
    assert [o for o, sel in options if sel] == [RESUME]  # the baseline
    assert f'name="sets" value="{RESUME_NIGHT2}"' in picker
    # two series side by side: the Excel export shares some keys with the nightly set
    html = body(served.get(f"/compare?sets={RESUME}&sets={EXCEL}"))
    assert metrics and all(f"{m[0]}</span>" in html for m in metrics)
    paired, only_a, only_b = map(
        int, re.search(r"([\d,]+) paired · ([\d,]+) only in A · ([\d,]+) only in B", html).groups()
    )
    assert paired + only_a == n_a and paired + only_b == n_b and paired > 0 and only_a > 0 and only_b > 0
    # the downloads carry the same figures
    rows = list(csv.DictReader(io.StringIO(body(served.get(f"/compare.csv?sets={RESUME}&sets={EXCEL}")))))
    assert [(r["metric"], float(r["delta"])) for r in rows] == [(m, d) for m, d, _ in metrics]
    items = list(csv.DictReader(io.StringIO(body(served.get(f"/compare.csv?sets={RESUME}&sets={EXCEL}&table=items")))))
    assert len(items) == paired + only_a + only_b
    assert items[0]["change"] in ("pass_to_fail", "fail_to_pass", "score_changed", "unchanged")
    # an item of both sets side by side, its answers diffed by words
    link = links(html, "/compare/item")[0]
    item = body(served.get(link))
    first = items[0]
    assert f"<h1>{first['query_id']} <small>round {first['round']}" in item
    cells = item.split('<td class="text">')[1:3]
    if first["message_a"] != first["message_b"]:
        assert "<del>" in cells[0] or "<ins>" in cells[1]
    assert served.get(link.replace("sets=", "sets=x", 1)).status_code == 404


def test_an_imported_runs_picker_offers_the_runs_of_its_task_first(served):
    """lm_eval's series are (tool, task, model): the picker of a ko_arith run
    lists the other ko_arith runs, whatever their model, before the runs of
    other tasks, and every other run of the tool."""
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        runs = dict(con.execute("select set_id, task from marts.eval_runs where tool = 'lm_eval'").fetchall())
    chosen = next(s for s, task in sorted(runs.items()) if task == "ko_arith" and "korean-7b" in s and "11-02" in s)
    models = {s.split("/")[2] for s, task in runs.items() if task == "ko_arith" and s != chosen}
    assert len(models) == 2  # the same task is offered for another model too
    page = body(served.get("/set?id=" + chosen.replace("#", "%23")))
    picker = page.split('class="compare-picker"', 1)[1].split("</form>", 1)[0]
    options = [html.unescape(o) for o in re.findall(r'<option value="([^"]+)"', picker)]
    assert sorted(options) == sorted(s for s in runs if s != chosen)
    same = [o for o in options if runs[o] == "ko_arith"]
    assert options[: len(same)] == same and len(same) == len(options) - sum(t != "ko_arith" for t in runs.values())
    assert '<optgroup label="same task: ko_arith">' in picker


# ---------------------------------------------------------------- labels and dates

# the verdicts of history_metric_diffs as the viewer must show them
VERDICT_BADGES = {
    "within_noise": "잡음 이내 · within noise",
    "regressed": "회귀 · regressed",
    "improved": "개선 · improved",
}


def reason_labels() -> dict[str, dict[str, str]]:
    """seeds/common/reason_labels.csv, read as a file."""
    with open(PROJECT / "seeds" / "common" / "reason_labels.csv", encoding="utf-8", newline="") as f:
        return {row["reason"]: row for row in csv.DictReader(f)}


def badges(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<span class="badge verdict-(\w+)">([^<]*)</span>', html)


def test_verdict_badges_are_korean_with_the_english_term_beside(served):
    overview = badges(body(served.get("/")))
    # the samples' newest night has all three verdicts (promptfoo's all_caps
    # regressed, the recruit agent's consistency improved, the rest within noise)
    assert {verdict for verdict, _ in overview} == set(VERDICT_BADGES)
    assert all(text == VERDICT_BADGES[verdict] for verdict, text in overview)
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        verdicts = [
            r[0]
            for r in con.execute(
                "select verdict from marts.history_metric_diffs where set_id = ? order by metric_order", [RESUME_NIGHT2]
            ).fetchall()
        ]
    assert verdicts
    page = f"/set?id={RESUME_NIGHT2}"
    assert badges(body(served.get(page))) == [(v, VERDICT_BADGES[v]) for v in verdicts], page
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        compared = [
            r[0]
            for r in con.execute(
                "select verdict from marts.compare_metrics(?, ?) order by metric_order", [RESUME, RESUME_NIGHT2]
            ).fetchall()
        ]
    assert compared
    compare = body(served.get(f"/compare?set={RESUME_NIGHT2}"))
    assert badges(compare) == [(v, VERDICT_BADGES[v]) for v in compared]


def test_tracks_are_spelled_as_the_reports_spell_them(served):
    # seed resume_track_rubrics labels the tracks `Track 1`..`Track 3`; the
    # hostile file's lines 2 and 3 are Track 1, lines 4 and 5 Track 2
    html = body(served.get(f"/set?id={HOSTILE}"))
    select = html.split('<select name="segment">', 1)[1].split("</select>", 1)[0]
    assert re.findall(r'<option value="(\d)"\s*>([^<]*)</option>', select) == [
        ("1", "Track 1"),
        ("2", "Track 2"),
        ("3", "Track 3"),
    ]
    assert re.findall(r'<td class="segment">([^<]*)</td>', html) == ["Track 1", "Track 1", "Track 2", "Track 2"]
    assert re.findall(r'<td class="segment">([^<]*)</td>', body(served.get(f"/set?id={HOSTILE}&segment=2"))) == [
        "Track 2",
        "Track 2",
    ]
    assert re.search(r"track_\d", html, re.I) is None


def test_reason_codes_are_shown_with_their_korean_explanation(served):
    labels = reason_labels()

    def shown(code: str) -> str:
        label = labels[code]
        return f'<span class="reason" title="{label["explanation"]}">{label["label_ko"]} (<code>{code}</code>)</span>'

    # hostile line 3: status error because its 오류 column is not blank (SPEC 3.2)
    assert shown("error_column") in body(served.get(f"/item?set={HOSTILE}&line=3"))
    assert shown("partial_keyword") in body(served.get(f"/item?set={HOSTILE}&line=4"))
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        line, reasons = con.execute(
            "select line_number, list(distinct reason) from marts.recruit_check_results where set_id = ? "
            "group by line_number order by count(distinct reason) desc, line_number limit 1",
            [RECRUIT],
        ).fetchone()
        queue = [
            r[0]
            for r in con.execute(
                "select distinct review_reason from marts.summary_review_queue where set_id = ?", [SUMMARY]
            ).fetchall()
        ]
    checks = body(served.get(f"/item?set={RECRUIT}&line={line}"))
    assert len(reasons) > 1 and all(shown(reason) in checks for reason in reasons)
    summary = body(served.get(f"/set?id={SUMMARY}"))
    assert queue and all(shown(reason) in summary for reason in queue if reason)


def test_every_reason_code_in_the_published_file_has_a_label(served):
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        codes = {
            r[0]
            for r in con.execute(
                "select reason from ops.rejected_rows union select status_reason from marts.resume_item_scores "
                "union select status_reason from marts.recruit_item_scores "
                "union select accuracy_reason from marts.recruit_item_scores "
                "union select reason from marts.recruit_check_results "
                "union select review_reason from marts.summary_review_queue"
            ).fetchall()
            if r[0] is not None
        }
        published = {r[0] for r in con.execute("select reason from rubric.reason_labels").fetchall()}
    assert {"invalid_track", "error_column", "passed", "no_checks"} <= codes
    assert codes - published == set()


def test_dates_are_shown_as_yyyy_mm_dd(served):
    html = body(served.get("/series?id=resume_agent_nightly.csv&from=2026-11-02"))
    # a date input shows the browser's locale (11/02/2026 in Chromium): the
    # range is chosen among the series' drop dates, written YYYY-MM-DD
    assert 'type="date"' not in html
    for name, chosen in (("from", "2026-11-02"), ("to", None)):
        select = html.split(f'<select name="{name}">', 1)[1].split("</select>", 1)[0]
        options = re.findall(r'<option value="([^"]*)"\s*(selected)?>([^<]*)</option>', select)
        assert [(value, text) for value, _, text in options] == [
            ("", "–"),
            ("2026-11-01", "2026-11-01"),
            ("2026-11-02", "2026-11-02"),
        ]
        assert [value for value, selected, _ in options if selected] == ([chosen] if chosen else [])
    assert fmt_date(datetime(2026, 11, 2, 7, 5, 59)) == "2026-11-02 07:05"
    assert fmt_date(date(2026, 11, 2)) == "2026-11-02"
    assert fmt_date(None) == "–" and fmt_date("1/1") == "1/1"


# ---------------------------------------------------------------- errors and security


@pytest.mark.parametrize(
    "path, status",
    [
        ("/set?id=no-such-set", 404),
        ("/set", 400),
        ("/item?set=no-such-set&line=2", 404),
        (f"/item?set={HOSTILE}&line=999", 404),
        (f"/item?set={HOSTILE}&line=two", 400),
        (f"/item?set={HOSTILE}", 400),
        (f"/item?set={SUMMARY}&line=1", 404),
        (f"/set?id={HOSTILE}&page=x", 400),
        (f"/set?id={HOSTILE}&page=0", 400),
        (f"/set?id={HOSTILE}&per_page=7", 400),
        (f"/set?id={HOSTILE}&sort=line_number;drop table x", 400),
        (f"/set?id={HOSTILE}&dir=sideways", 400),
        (f"/set?id={HOSTILE}&status=broken", 400),
        (f"/set?id={HOSTILE}&round=9/9", 400),
        (f"/set?id={HOSTILE}&result=maybe", 400),
        (f"/set?id={HOSTILE}&q=" + "x" * 201, 400),
        (f"/set?id={SUMMARY}&below=summary_everything", 400),
        ("/series?id=no-such-series", 404),
        ("/series", 400),
        ("/series?id=resume_agent_nightly.csv&from=yesterday", 400),
        ("/?date=2026-13-01", 400),
        ("/?date=1999-01-01", 404),
        ("/compare?set=no-such-set", 404),
        ("/compare", 400),
        (f"/compare?sets={RESUME}", 400),
        (f"/compare?sets={RESUME}&sets=no-such-set", 404),
        (f"/compare?sets={RESUME}&sets={RECRUIT}", 400),
        (f"/compare?sets={RESUME}&sets={RESUME}", 400),
        (f"/compare?sets={RESUME}&sets={RESUME_NIGHT2}&versus={HOSTILE}", 400),
        (f"/compare.csv?sets={RESUME}&sets={RESUME_NIGHT2}&table=x", 400),
        ("/no-such-page", 404),
    ],
)
def test_bad_requests_are_400_or_404_never_a_traceback(served, path, status):
    response = served.get(path)
    assert response.status_code == status
    html = body(response)
    assert "Traceback" not in html and 'class="error-message"' in html


def test_every_query_value_is_a_parameter(served):
    # a set id and a search that would break SQL if pasted into it
    for path in (
        "/set?id=x' or '1'='1",
        f"/set?id={HOSTILE}&q=' or 1=1 --",
        "/series?id=a'); drop table x; --",
        f"/compare?sets={RESUME}&sets=x') union select 1 --",
    ):
        response = served.get(path)
        assert response.status_code in (200, 404) and "Traceback" not in body(response)
    assert re.findall(r"(\d+) matching", body(served.get(f"/set?id={HOSTILE}&q=' or 1=1 --"))) == ["0"]


def test_token_is_required_on_every_request_when_set(served):
    token = "t0ken-for-the-viewer-tests"
    client = create_app(served.wh.paths.published_db, token=token).test_client()
    for path in ("/", f"/set?id={HOSTILE}", "/static/viewer.js", "/fonts/NanumGothic.ttf"):
        assert client.get(path).status_code == 401, path
    assert client.get("/", headers={"Authorization": "Bearer wrong-token"}).status_code == 401
    assert client.get("/", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    for scheme in ("bearer", "BEARER", "BeArEr"):  # RFC 7235: the scheme in any case
        assert client.get("/", headers={"Authorization": f"{scheme} {token}"}).status_code == 200, scheme
    assert client.get("/", headers={"Authorization": f"Basic {token}"}).status_code == 401
    first = client.get(f"/?token={token}")
    assert first.status_code == 200 and "agent_eval_token=" in first.headers.get("Set-Cookie", "")
    assert client.get(f"/set?id={HOSTILE}").status_code == 200  # the cookie carries it on


def test_serve_refuses_to_bind_beyond_loopback_without_a_token(monkeypatch, capsys):
    monkeypatch.delenv("AGENT_EVAL_SERVE_TOKEN", raising=False)
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "0"]) == cli.EXIT_USAGE
    assert "AGENT_EVAL_SERVE_TOKEN" in capsys.readouterr().err
    monkeypatch.setenv("AGENT_EVAL_SERVE_TOKEN", "short")
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "0"]) == cli.EXIT_USAGE
    assert cli.serve_token("127.0.0.1") == ("short", None)  # loopback: optional, used when set
    for blank in ("   ", " padded-secret-of-enough-characters ", "\t"):
        monkeypatch.setenv("AGENT_EVAL_SERVE_TOKEN", blank)
        token, refusal = cli.serve_token("127.0.0.1")
        assert token is None and "blanks" in refusal, blank
        assert cli.main(["serve", "--port", "0"]) == cli.EXIT_USAGE


def test_pages_send_a_content_security_policy_and_serve_assets_locally(served):
    response = served.get("/")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    html = body(response)
    assert "http://" not in html and "https://" not in html  # no CDN
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        assert served.get(asset).status_code == 200, asset
    font = served.get("/fonts/NanumGothic.ttf")
    assert font.status_code == 200 and font.data[:4] == b"\x00\x01\x00\x00"  # TrueType


def test_no_published_file_answers_503_with_what_to_run(tmp_path):
    client = create_app(tmp_path / "missing.duckdb").test_client()
    response = client.get("/")
    assert response.status_code == 503 and "agent-eval build" in body(response)


# ---------------------------------------------------------------- a real browser

CHROMIUM = Path(os.environ.get("AGENT_EVAL_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def test_a_real_browser_clicks_from_the_overview_to_a_failing_item(served, tmp_path):
    """Debian's Chromium (installed by `make browser`, which `make test` runs)
    driven by Playwright: overview → a resume set → the fail filter → an item.
    No console error or failed request on the way; screenshots beside the test's
    temporary files."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.is_file(), f"{CHROMIUM} is missing: run `make browser` (apt-get install chromium, as root)"
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
        page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)

        page.goto(served.base + "/?date=2026-11-01")
        cards = page.locator("section.card")
        assert cards.count() >= 4 and cards.first.is_visible()
        # the app's own Korean font loads and covers the page's Korean (no tofu)
        assert page.evaluate("document.fonts.load('16px NanumGothic', '지원자 관리').then(f => f.length)") == 1
        assert page.evaluate("document.fonts.check('16px NanumGothic', '지원자 관리 보험 요약')")
        page.screenshot(path=str(tmp_path / "1-overview.png"), full_page=True)

        page.locator(f'section.card[data-set="{RESUME}"] a.set-link').click()  # click 1
        page.wait_for_load_state()
        assert page.locator("table.items tbody tr").count() > 1
        page.select_option("#item-filters select[name=result]", "fail")
        page.locator("#item-filters button[type=submit]").click()  # click 2
        page.wait_for_load_state()
        rows = page.locator("table.items tbody tr.fail")
        assert rows.count() >= 1 and page.locator("table.items tbody tr.pass").count() == 0
        page.screenshot(path=str(tmp_path / "2-failing-items.png"), full_page=True)

        rows.first.locator("a.item-link").click()  # click 3
        page.wait_for_load_state()
        assert page.get_by_role("heading", name="Raw JSON").is_visible()
        assert page.locator("text=fail").first.is_visible()
        page.screenshot(path=str(tmp_path / "3-item.png"), full_page=True)

        page.goto(served.base + "/series?id=resume_agent_nightly.csv")
        page.wait_for_selector("[data-chart][data-drawn=true]")
        assert page.locator("[data-chart] canvas").count() == page.locator("[data-chart]").count() >= 4
        page.screenshot(path=str(tmp_path / "4-series.png"), full_page=True)

        page.goto(served.base + f"/item?set={HOSTILE}&line=2")
        assert page.locator("pre.text-block", has_text="<script>alert(1)</script>").count() == 1
        browser.close()
    assert problems == []
    assert all(
        (tmp_path / name).stat().st_size > 10_000
        for name in ("1-overview.png", "2-failing-items.png", "3-item.png", "4-series.png")
    )


def test_a_series_chart_legend_shows_the_latest_point_until_hovered(served):
    """uPlot's legend shows the hovered point, and "--" with the cursor off
    the chart: the viewer shows the latest point (the newest set) then.
    Expected: the series' first metric in the mart, at three decimals as
    the table below the chart."""
    from playwright.sync_api import sync_playwright

    series_id = "resume_agent_nightly.csv"
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        values = con.execute(
            "select drop_date, metric_value from marts.history_metric_trends where series_id = ? "
            "and metric_order = (select min(metric_order) from marts.history_metric_trends where series_id = ?) "
            "order by set_seq",
            [series_id, series_id],
        ).fetchall()
    (first_date, first), (last_date, last) = values[0], values[-1]
    assert len(values) == 2 and first != last

    assert CHROMIUM.is_file(), f"{CHROMIUM} is missing: run `make browser` (apt-get install chromium, as root)"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(served.base + f"/series?id={series_id}")
        page.wait_for_selector("[data-chart][data-drawn=true]")
        chart = page.locator(".chart-box").first

        def legend() -> dict[str, str]:
            return dict(
                chart.locator(".u-legend").evaluate(
                    "el => [...el.querySelectorAll('tr.u-series')].map("
                    "r => [r.querySelector('.u-label').textContent, r.querySelector('.u-value').textContent])"
                )
            )

        assert legend()["set"] == str(last_date) and legend()["value"] == f"{last:.3f}"
        over = chart.locator(".u-over").bounding_box()
        # the x scale spans the two sets with 0.35 of a step either side: the
        # first set sits at 0.35 / 1.7 of the width
        page.mouse.move(over["x"] + over["width"] * 0.35 / 1.7, over["y"] + over["height"] / 2)
        assert legend()["set"] == str(first_date) and legend()["value"] == f"{first:.3f}"
        page.mouse.move(over["x"] + over["width"] / 2, over["y"] + over["height"] + 200)  # off the chart
        assert legend()["set"] == str(last_date) and legend()["value"] == f"{last:.3f}"
        browser.close()


def test_recruit_flips_name_the_failing_check(served):
    """A recruit item can fail the pass rule with status ok (a check failed):
    history_flips names the first failing check, which the morning page shows
    after `ok → ok`. Expected: the first failing check of the
    item's line in recruit_check_results, read here directly."""
    with duckdb.connect(str(served.wh.paths.published_db), read_only=True) as con:
        flips = con.execute(
            "select set_id, line_number, status, fail_reason from marts.history_flips "
            "where agent = 'recruit_agent' and not is_pass and status in ('ok', 'partial')"
        ).fetchall()
        assert flips
        for set_id, line, _, reason in flips:
            name, why = con.execute(
                "select coalesce(check_name, check_path, 'check ' || check_seq), reason "
                "from marts.recruit_check_results where set_id = ? and line_number = ? and not is_passed "
                "order by check_seq limit 1",
                [set_id, line],
            ).fetchone()
            assert reason == f"{name}: {why}"
        assert (
            con.execute(
                "select count(*) from marts.history_flips where is_pass and fail_reason is not null"
            ).fetchone()[0]
            == 0
        )


def test_the_viewer_reads_exactly_what_its_exposure_declares(served, monkeypatch):
    """Every page reachable from the overview by its links (each distinct
    path and query once; a download's query in one of its formats) reads
    only, and together all, the tables the web_viewer exposure lists. Every
    read goes through agent_eval.db.fetch."""
    seen: set[str] = set()
    # a download runs one query whatever its format (downloads.build, then
    # the format's writer): each table is fetched in each format, and each
    # query in one of them
    queries: set[str] = set()
    paths: set[str] = set()
    queue = ["/", "/series/all", "/engagement"]
    with reads_recorded(monkeypatch) as read:
        while queue and len(seen) < 3000:
            url = queue.pop(0)
            query, path = DOWNLOAD.sub(r"\1.*", url), url.split("?")[0]
            if url in seen or (query != url and query in queries and path in paths):
                continue
            seen.add(url)
            queries.add(query)
            paths.add(path)
            response = served.get(url)
            if response.status_code != 200 or response.mimetype != "text/html":
                continue
            queue += [link for link in links(body(response), "/") if not link.startswith(("/fonts", "/static"))]
    assert len(seen) > 20 and not queue  # every link followed
    assert read == exposure_parents(PROJECT / "models" / "marts" / "history" / "_history__exposures.yml", "web_viewer")
