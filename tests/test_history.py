"""Nightly history (docs/history.md) on a hand-worked series.

tests/fixtures/history: resume_agent_hist.csv on three nights, 8 queries
(Q1..Q8) x 3 rounds, Track 1; latency of (Qi, round r) = i + 8 (r - 1) s,
so a set's latencies are 1..24 s. Pass = stability 5 = status ok.

  night 1 (2026-11-10): every item ok                 stability 5
  night 2 (2026-11-11): Q1 errors in rounds 1 and 2   round means 35/8, 35/8, 5
                                                      -> (35/8 + 35/8 + 5) / 3 = 55/12
  night 3 (2026-11-12): every item errors except Q1 round 3
                                                      round means 0, 0, 5/8 -> 5/24

Cluster-robust standard error (weights w = 1/24; G = 8 queries, CR1 factor 8/7):
  night 1: every residual 0 -> se 0
  night 2: residual sums per query: Q1 (-55/12 -55/12 +5/12)/24 = -35/96,
           Q2..Q8 (3 x 5/12)/24 = 5/96
           V = 8/7 x (35^2 + 7 x 5^2) / 96^2 = 8/7 x 1400/9216 = 25/144 -> se 5/12
  night 3: Q1 (-5/24 -5/24 +115/24)/24 = 105/576, Q2..Q8 (3 x -5/24)/24 = -15/576
           V = 8/7 x (105^2 + 7 x 15^2) / 576^2 = 14400/331776 -> se 5/24
  95% interval: value +- t(0.975, 7) x se, t = 2.364624.

The series is built in three steps on a copy of the project (seeds are
edited): night 1; then a rule seed edit (a partial keyword no message has,
so no score moves but the scoring version does) and night 2; then night 1
is blessed as the series' baseline and night 3 arrives.

  night 2 vs night 1:            delta -5/12, se sqrt(0 + (5/12)^2), interval
      -5/12 +- 2.364624 x 5/12 = [-1.40, 0.57] holds 0 -> within_noise
  night 3 vs night 1 (blessed):  delta 5/24 - 5 = -115/24, se 5/24,
      interval [-5.28, -4.30] -> regressed
  flips night 3 vs night 1: 23 pass->fail, 0 fail->pass, Q1 round 3 still
      passes; exact McNemar p = 2 x 0.5^23
  gate resume_agent:stability_score (min 2.5, max regression 1.5) fails on
      night 3: 5/24 < 2.5 and -115/24 < -1.5.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import duckdb
import pytest

from agent_eval import cli
from agent_eval.cli import EXIT_GATE_FAILED, EXIT_OK
from conftest import FIXTURES, PARSE_STATE, copy_project, start_from_empty_project

SERIES = "resume_agent_hist.csv"
N1, N2, N3 = (f"{d}/{SERIES}" for d in ("2026-11-10", "2026-11-11", "2026-11-12"))
T7 = 2.3646242510  # t(0.975, 7), to 10 digits (any t table; scipy.stats.t.ppf(0.975, 7))
APPROX = {"rel": 1e-9, "abs": 1e-12}


class Series:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = root / "project"
        self.drops = root / "drops"
        self.db = root / "warehouse.duckdb"  # the name of the shared parse state
        self.reports = root / "reports"
        self.published = root / "published"
        self.runs: list[subprocess.CompletedProcess] = []

    def add_night(self, date: str) -> None:
        shutil.copytree(FIXTURES / "history" / date, self.drops / date)

    def build(self) -> subprocess.CompletedProcess:
        """`agent-eval build`, without the markdown reports (test_morning and
        test_charts render the history's; the gates' JUnit XML is written
        all the same), in this process (dbt is the session's preloaded one:
        conftest.preloaded_dbt), its output and exit code kept as a
        finished process's."""
        argv = [
            "build",
            "--no-reports",
            "--project-dir",
            str(self.project),
            "--db",
            str(self.db),
            "--drops",
            str(self.drops),
            "--reports",
            str(self.reports),
            "--published",
            str(self.published),
        ]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(argv)
        run = subprocess.CompletedProcess(["agent-eval", *argv], code, out.getvalue(), err.getvalue())
        self.runs.append(run)
        return run

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        with duckdb.connect(str(self.db), read_only=True) as con:
            return con.execute(sql, params or []).fetchall()

    def one(self, sql: str, params: list | None = None):
        rows = self.query(sql, params)
        assert len(rows) == 1, rows
        return rows[0]


@pytest.fixture(scope="module")
def series(tmp_path_factory) -> Series:
    s = Series(tmp_path_factory.mktemp("history"))
    copy_project(s.project, singular_tests=True)  # with the gate test
    if PARSE_STATE.is_file():  # dbt re-parses only what differs from it
        (s.project / "target").mkdir()
        shutil.copyfile(PARSE_STATE, s.project / "target" / "partial_parse.msgpack")
    s.drops.mkdir()
    start_from_empty_project(s.db)  # the copy is the project: the same digest
    s.add_night("2026-11-10")
    assert s.build().returncode == EXIT_OK, s.runs[-1].stdout[-3000:]

    keywords = s.project / "seeds" / "common" / "partial_keywords.csv"
    keywords.write_text(
        keywords.read_text(encoding="utf-8") + "재확인 바랍니다,test: a keyword no message has\n", encoding="utf-8"
    )
    s.add_night("2026-11-11")
    assert s.build().returncode == EXIT_OK, s.runs[-1].stdout[-3000:]

    baselines = s.project / "seeds" / "history" / "history_baselines.csv"
    baselines.write_text(
        baselines.read_text(encoding="utf-8") + f"{SERIES},{N1},the last good night\n", encoding="utf-8"
    )
    s.add_night("2026-11-12")
    s.build()
    return s


def test_set_values_have_clustered_intervals(series):
    rows = series.query(
        "select set_id, metric_value, n_obs, n_clusters, std_error, ci_low, ci_high, ci_method "
        "from marts.history_set_metrics where metric = 'stability_score' order by set_seq"
    )
    assert [r[0] for r in rows] == [N1, N2, N3]
    expected = [(5.0, 0.0), (55 / 12, 5 / 12), (5 / 24, 5 / 24)]
    for row, (value, se) in zip(rows, expected):
        assert row[1] == pytest.approx(value, **APPROX)
        assert row[2:4] == (24, 8)
        assert row[4] == pytest.approx(se, **APPROX)
        # the t interval within the rubric's 0-5 scale (seed history_metrics)
        assert row[5] == pytest.approx(max(value - T7 * se, 0.0), **APPROX)
        assert row[6] == pytest.approx(min(value + T7 * se, 5.0), **APPROX)
        assert row[7] == "cluster_robust_t"
    # the value is the set mart's, not a second computation
    assert (
        series.query(
            "select h.metric_value = s.stability_score from marts.history_set_metrics h "
            "join marts.resume_set_scores s using (set_id) where h.metric = 'stability_score'"
        )
        == [(True,)] * 3
    )


def test_a_change_within_noise_is_not_flagged_and_a_regression_is(series):
    rows = {
        r[0]: r[1:]
        for r in series.query(
            "select set_id, baseline_set_id, baseline_source, delta, delta_std_error, delta_ci_low, "
            "delta_ci_high, verdict, verdict_basis from marts.history_metric_diffs "
            "where metric = 'stability_score'"
        )
    }
    assert set(rows) == {N2, N3}
    base, source, delta, se, low, high, verdict, basis = rows[N2]
    # night 1 is blessed and earlier than night 2: the baseline of both
    assert (base, source, verdict, basis) == (N1, "blessed", "within_noise", "interval_and_min_delta")
    assert delta == pytest.approx(-5 / 12, **APPROX)
    assert se == pytest.approx(5 / 12, **APPROX)
    assert (low, high) == (pytest.approx(-5 / 12 - T7 * 5 / 12), pytest.approx(-5 / 12 + T7 * 5 / 12))

    base, source, delta, se, low, high, verdict, _ = rows[N3]
    assert (base, source, verdict) == (N1, "blessed", "regressed")
    assert delta == pytest.approx(5 / 24 - 5, **APPROX)
    assert se == pytest.approx(5 / 24, **APPROX)
    assert high == pytest.approx(5 / 24 - 5 + T7 * 5 / 24) and high < 0
    # latencies are the same every night: no change, within noise
    assert series.query(
        "select distinct delta, verdict from marts.history_metric_diffs where metric = 'latency_sec'"
    ) == [(0.0, "within_noise")]


def test_trends_carry_rolling_means_and_the_baseline(series):
    rows = series.query(
        "select set_id, rolling_7_mean, rolling_7_n, rolling_28_mean, baseline_set_id "
        "from marts.history_metric_trends where metric = 'stability_score' order by set_seq"
    )
    assert [r[0] for r in rows] == [N1, N2, N3]
    means = [5.0, (5 + 55 / 12) / 2, (5 + 55 / 12 + 5 / 24) / 3]
    for row, mean, n in zip(rows, means, (1, 2, 3)):
        assert row[1] == pytest.approx(mean, **APPROX) and row[3] == pytest.approx(mean, **APPROX)
        assert row[2] == n
    assert [r[4] for r in rows] == [None, N1, N1]


def test_provenance_changes_when_a_rule_seed_changes(series):
    versions = dict(series.query("select set_id, min(scoring_version) from marts.history_set_metrics group by set_id"))
    assert series.query("select count(distinct scoring_version) from marts.history_set_metrics") == [(2,)]
    assert versions[N1] != versions[N2] == versions[N3]
    # the set mart records the same version with each set
    assert dict(series.query("select set_id, scoring_version from marts.resume_set_scores")) == versions
    # the seed edit moved no score ...
    assert series.query(
        "select count(*) from marts.history_metric_diffs where set_id = ? and metric = 'latency_score' and delta = 0",
        [N2],
    ) == [(1,)]
    # ... but every comparison across it says so
    assert series.query("select distinct is_scoring_version_changed from marts.history_metric_diffs") == [(True,)]


def test_flips_and_mcnemar(series):
    flips = series.query(
        "select transition, count(*) from marts.history_flips where set_id = ? group by 1 order by 1", [N3]
    )
    assert flips == [("pass_to_fail", 23), ("still_pass", 1)]
    assert series.one(
        "select baseline_status, status, baseline_message, message from marts.history_flips "
        "where set_id = ? and query_id = 'Q2' and round = '1/1'",
        [N3],
    ) == ("ok", "error", "질의 2의 결과입니다.", "시간 초과")
    assert series.one("select query_id, round from marts.history_flips where transition = 'still_pass'") == (
        "Q1",
        "3/1",
    )
    b, c, p, chi, significant = series.one(
        "select n_pass_fail, n_fail_pass, p_value, chi_square, is_significant "
        "from marts.history_flip_tests where set_id = ?",
        [N3],
    )
    assert (b, c, significant) == (23, 0, True)
    assert p == pytest.approx(2 * 0.5**23, rel=1e-9)
    assert chi == pytest.approx((23 - 1) ** 2 / 23, **APPROX)


def test_repeats_pass_at_k_and_flaky_classes(series):
    assert series.one(
        "select n_runs, n_pass, pass_rate, modal_status, flakiness_class from marts.history_query_repeats "
        "where set_id = ? and query_id = 'Q1'",
        [N2],
    ) == (3, 1, pytest.approx(1 / 3), "error", "flaky")
    classes = series.query(
        "select set_id, flakiness_class, count(*) from marts.history_query_repeats group by all order by all"
    )
    assert classes == [
        (N1, "always_pass", 8),
        (N2, "always_pass", 7),
        (N2, "flaky", 1),
        (N3, "always_fail", 7),
        (N3, "flaky", 1),
    ]
    # n = 3, c = 1: pass@k = 1 - C(2, k) / C(3, k); pass^k = C(1, k) / C(3, k)
    rows = series.query(
        "select k, pass_at_k, pass_hat_k, at_least_k from marts.history_query_pass_at_k "
        "where set_id = ? and query_id = 'Q1' order by k",
        [N2],
    )
    assert rows == [
        (1, pytest.approx(1 - 2 / 3), pytest.approx(1 / 3), True),
        (2, pytest.approx(1 - 1 / 3), 0.0, False),
        (3, 1.0, 0.0, False),
    ]
    assert series.query(
        "select distinct pass_at_k, pass_hat_k from marts.history_query_pass_at_k where set_id = ? and query_id = 'Q2'",
        [N1],
    ) == [(1.0, 1.0)]
    # Q1 was flaky on nights 2 and 3: listed; 5 passes in 9 runs
    assert series.query(
        "select query_id, n_recent_sets, n_flaky_sets, n_runs, n_pass, is_flaky_in_latest "
        "from marts.history_flaky_queries"
    ) == [("Q1", 3, 2, 9, 5, True)]


def test_latency_percentiles(series):
    def pct(set_id, scope, round_, item_filter):
        return series.one(
            "select n_with_latency, p50_sec, p90_sec, p95_sec, p99_sec from marts.history_latency_percentiles "
            "where set_id = ? and scope = ? and round = ? and segment = ? and item_filter = ?",
            [set_id, scope, round_, "all" if scope in ("set", "round") else "track_1", item_filter],
        )

    # 1..24 s: positions 23 q between order statistics
    assert pct(N1, "set", "all", "all") == (24, 12.5, pytest.approx(21.7), pytest.approx(22.85), pytest.approx(23.77))
    assert pct(N1, "round", "1/1", "all") == (8, 4.5, pytest.approx(7.3), pytest.approx(7.65), pytest.approx(7.93))
    assert pct(N1, "segment", "all", "all")[1] == 12.5
    # night 2: Q1 errored at 1 s (round 1) and 9 s (round 2): reported apart
    assert pct(N2, "set", "all", "error") == (2, 5.0, pytest.approx(8.2), pytest.approx(8.6), pytest.approx(8.92))
    assert pct(N2, "set", "all", "non_error")[0] == 22
    assert series.query(
        "select count(*) from marts.history_latency_percentiles where set_id = ? and item_filter = 'error'", [N1]
    ) == [(0,)]
    # the rubric mean beside them is the round mart's
    assert (
        series.query(
            "select h.mean_latency_score = r.latency_score from marts.history_latency_percentiles h "
            "join marts.resume_round_scores r on h.set_id = r.set_id and h.round = r.round "
            "where h.scope = 'round' and h.item_filter = 'all'"
        )
        == [(True,)] * 9
    )


def test_a_failing_gate_fails_the_night_naming_the_metric(series):
    night3 = series.runs[2]
    assert night3.returncode == EXIT_GATE_FAILED
    assert (f"quality gate failed: resume_agent stability_score = 0.208 < min_score 2.500 in set {N3}") in night3.stderr
    assert "changed by -4.792 against baseline" in night3.stderr
    # dbt's own output names it too (the test assert_quality_gates_pass), in
    # the log the summary names
    dbt_log = re.search(r"dbt's output: (\S+)", night3.stdout)
    assert dbt_log and "quality gate(s) failed: resume_agent stability_score" in Path(dbt_log[1]).read_text(
        encoding="utf-8"
    )
    # the scores were published and reported all the same
    with duckdb.connect(str(series.published / series.db.name), read_only=True) as con:
        assert con.execute("select count(*) from marts.resume_set_scores where set_id = ?", [N3]).fetchone() == (1,)
    junit = ElementTree.parse(series.reports / "quality_gates.junit.xml").getroot()
    suite = junit.find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("1", "1")
    failure = suite.find("testcase/failure")
    assert "stability_score = 0.208 < min_score 2.500" in failure.get("message")
    assert series.query("select set_id, status from marts.history_gate_log order by evaluated_at, set_id") == [
        (N1, "pass"),
        (N2, "pass"),
        (N3, "fail"),
    ]


def test_rerunning_a_failed_night_keeps_failing_and_logs_nothing_twice(series):
    before = series.query("select * from marts.history_gate_log order by all")
    again = series.build()
    assert again.returncode == EXIT_GATE_FAILED
    assert series.query("select * from marts.history_gate_log order by all") == before
