"""The history marts' statistics against an established library (scipy), on
the bundled sample drops (issue 17.3): the clustered 95% intervals of every
set metric and every baseline delta (Student t quantiles for every df the
sample produces, df 36 among them), McNemar's exact p and pass@k.

scipy is a dev dependency; the warehouse never imports it. Before issue 17
the t quantile came from a stepped table (df 31-39 took t(40) = 2.021 for
t(36) = 2.028): these intervals were 0.35% too narrow and this test failed.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pytest
from scipy import special, stats

REL = 1e-6


@pytest.fixture(scope="module")
def published(module_built: Any) -> duckdb.DuckDBPyConnection:
    wh, _ = module_built("samples")
    con = duckdb.connect(str(wh.paths.published_db), read_only=True)
    yield con
    con.close()


def t975(df: int) -> float:
    return float(stats.t.ppf(0.975, df))


def test_set_metric_intervals_use_the_exact_t_quantile(published):
    rows = published.execute(
        "select set_id, metric, metric_value, n_clusters, std_error, ci_low, ci_high from marts.history_set_metrics "
        "where ci_method = 'cluster_robust_t' and n_clusters >= 2 and std_error > 0"
    ).fetchall()
    dfs = {r[3] - 1 for r in rows}
    assert any(30 < df < 120 for df in dfs), dfs  # where the stepped table was wrong
    for set_id, metric, value, n_clusters, se, low, high in rows:
        half = t975(n_clusters - 1) * se
        assert high - value == pytest.approx(half, rel=REL), (set_id, metric)
        assert value - low == pytest.approx(half, rel=REL), (set_id, metric)


def test_baseline_delta_intervals_use_the_exact_t_quantile(published):
    rows = published.execute(
        "select set_id, metric, delta, n_clusters, baseline_n_clusters, delta_std_error, delta_ci_low, "
        "delta_ci_high from marts.history_metric_diffs where delta_std_error > 0"
    ).fetchall()
    assert rows
    for set_id, metric, delta, n, n_base, se, low, high in rows:
        half = t975(min(n, n_base) - 1) * se
        assert high - delta == pytest.approx(half, rel=REL), (set_id, metric)
        assert delta - low == pytest.approx(half, rel=REL), (set_id, metric)


def test_mcnemar_exact_p_matches_the_binomial_test(published):
    rows = published.execute(
        "select set_id, n_pass_fail, n_fail_pass, p_value from marts.history_flip_tests "
        "where n_pass_fail + n_fail_pass > 0"
    ).fetchall()
    assert rows
    for set_id, b, c, p in rows:
        expected = stats.binomtest(min(b, c), b + c, 0.5, alternative="two-sided").pvalue
        assert p == pytest.approx(expected, rel=REL), set_id


def test_pass_at_k_matches_the_unbiased_estimator(published):
    rows = published.execute(
        "select n_runs, n_pass, k, pass_at_k, pass_hat_k from marts.history_query_pass_at_k"
    ).fetchall()
    assert any(0 < c < n for n, c, *_ in rows)  # some query passed some of its runs
    for n, c, k, pass_at_k, pass_hat_k in rows:
        assert pass_at_k == pytest.approx(
            1 - special.comb(n - c, k, exact=True) / special.comb(n, k, exact=True), rel=REL, abs=1e-12
        )
        assert pass_hat_k == pytest.approx(
            special.comb(c, k, exact=True) / special.comb(n, k, exact=True), rel=REL, abs=1e-12
        )
