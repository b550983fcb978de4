"""Marts shaped for the questions analysts ask, on the bundled sample: "p95
by track over time" without a join, and "cases below threshold" as one
filter."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

SUMMARY_METRICS = ("summary_accuracy", "summary_risk_coverage", "summary_non_definitive", "summary_needs_followup")


@pytest.fixture(scope="module")
def published(demo_warehouse: Any) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(demo_warehouse.paths.published_db), read_only=True)
    yield con
    con.close()


def test_latency_percentiles_carry_their_series_and_drop_date(published):
    rows = published.execute(
        "select distinct p.set_id, p.series_id, p.drop_date, m.series_id, m.drop_date "
        "from marts.history_latency_percentiles as p "
        "join (select distinct set_id, series_id, drop_date from marts.history_set_metrics) as m using (set_id)"
    ).fetchall()
    assert (
        len(rows)
        == published.execute("select count(distinct set_id) from marts.history_latency_percentiles").fetchone()[0]
    )
    for set_id, series, day, set_series, set_day in rows:
        assert (series, day) == (set_series, set_day), set_id
    # "p95 of each track over time" reads one table
    tracks = published.execute(
        "select segment, drop_date, p95_sec from marts.history_latency_percentiles "
        "where agent = 'resume_agent' and scope = 'segment' and item_filter = 'all' order by segment, drop_date"
    ).fetchall()
    assert {segment for segment, _, _ in tracks} >= {"track_1", "track_2"}


def test_summary_case_metrics_is_the_long_form_of_case_scores(published):
    wide = published.execute(
        "select set_id, case_id, "
        + ", ".join(f"{m}, is_{m}_pass" for m in SUMMARY_METRICS)
        + " from marts.summary_case_scores"
    ).fetchall()
    assert wide
    long = {
        (r[0], r[1], r[2]): (r[3], r[4])
        for r in published.execute(
            "select set_id, case_id, metric, score, is_pass from marts.summary_case_metrics"
        ).fetchall()
    }
    assert len(long) == len(wide) * len(SUMMARY_METRICS)
    for row in wide:
        set_id, case_id, values = row[0], row[1], row[2:]
        for i, metric in enumerate(SUMMARY_METRICS):
            assert long[(set_id, case_id, metric)] == (values[2 * i], values[2 * i + 1]), (set_id, case_id, metric)
    below = published.execute(
        "select count(*) from marts.summary_case_metrics where not is_pass and score < threshold"
    ).fetchone()[0]
    assert below == sum(1 for value in long.values() if value[1] is False) > 0
