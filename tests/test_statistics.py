"""The history marts' statistics against an established library (scipy), on
the bundled sample drops: the clustered 95% intervals of every
set metric and every baseline delta (Student t quantiles for every df the
sample produces, df 36 among them), McNemar's exact p and pass@k.

scipy is a dev dependency; the warehouse never imports it. When
the t quantile came from a stepped table (df 31-39 took t(40) = 2.021 for
t(36) = 2.028): these intervals were 0.35% too narrow and this test failed.
"""

from __future__ import annotations

import csv
import math
import statistics
from typing import Any

import duckdb
import pytest
from scipy import special, stats

from agent_eval.viewer import create_app
from conftest import PROJECT_DIR

REL = 1e-6


@pytest.fixture(scope="module")
def published(demo_warehouse: Any) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(demo_warehouse.paths.published_db), read_only=True)
    yield con
    con.close()


def t975(df: int) -> float:
    return float(stats.t.ppf(0.975, df))


def test_set_metric_intervals_use_the_exact_t_quantile(published):
    # the intervals the ends of their scale do not cut (those: below)
    rows = published.execute(
        "select set_id, metric, metric_value, n_clusters, std_error, ci_low, ci_high from marts.history_set_metrics "
        "where ci_method = 'cluster_robust_t' and n_clusters >= 2 and std_error > 0 "
        "and (scale_min is null or ci_low > scale_min) and (scale_max is null or ci_high < scale_max)"
    ).fetchall()
    dfs = {r[3] - 1 for r in rows}
    assert any(30 < df < 120 for df in dfs), dfs  # where the stepped table was wrong
    for set_id, metric, value, n_clusters, se, low, high in rows:
        half = t975(n_clusters - 1) * se
        assert high - value == pytest.approx(half, rel=REL), (set_id, metric)
        assert value - low == pytest.approx(half, rel=REL), (set_id, metric)


def seed_scales() -> dict[tuple[str, str], tuple[float | None, float | None, bool]]:
    """(agent, metric) -> (scale min, scale max, is a proportion), as seed
    history_metrics declares them (a metric named by its data: the agent's
    '*' row)."""
    found = {}
    with (PROJECT_DIR / "seeds" / "history" / "history_metrics.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            bound = [float(row[k]) if row[k] else None for k in ("scale_min", "scale_max")]
            found[(row["agent"], row["metric"])] = (*bound, row["is_proportion"] == "true")
    return found


def scale_of(scales: dict, agent: str, metric: str) -> tuple[float | None, float | None, bool]:
    return scales.get((agent, metric)) or scales[(agent, "*")]


def wilson(p: float, n: float) -> tuple[float, float]:
    """Wilson's score interval at 95% for a share p of n (n may be an
    effective, non-integer size)."""
    z = float(stats.norm.ppf(0.975))
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_every_set_metric_interval_lies_within_its_scale(published):
    """Each interval is reported within the range seed history_metrics
    declares: the t interval cut at the scale's ends, a proportion's
    Wilson interval with the clustered effective sample size. Before, a
    0-5 score reported 95% [1.465, 7.202]."""
    scales = seed_scales()
    rows = published.execute(
        "select agent, set_id, metric, metric_value, n_obs, n_clusters, std_error, ci_low, ci_high, ci_method "
        "from marts.history_set_metrics where std_error is not null"
    ).fetchall()
    cut = proportions = 0
    for agent, set_id, metric, value, n_obs, n_clusters, se, low, high, method in rows:
        lo, hi, is_proportion = scale_of(scales, agent, metric)
        if lo is None and hi is None and not is_proportion and agent in HISTORY_OF_IMPORTED:
            continue  # the scale its data declares: the test after the next
        assert (lo is None or low >= lo - 1e-12) and (hi is None or high <= hi + 1e-12), (set_id, metric, low, high)
        if is_proportion:
            assert method == "wilson", (set_id, metric)
            n = n_obs if se == 0 or value in (0, 1) else min(n_obs, 1 + value * (1 - value) / se**2)
            expected = wilson(value, n)
            proportions += 1
        else:
            assert method == "cluster_robust_t", (set_id, metric)
            half = t975(n_clusters - 1) * se
            expected = (
                value - half if lo is None else max(value - half, lo),
                value + half if hi is None else min(value + half, hi),
            )
            cut += expected != (value - half, value + half)
        assert (low, high) == pytest.approx(expected, rel=REL, abs=1e-12), (set_id, metric)
    assert cut and proportions  # the sample has intervals the scale cuts, and proportions


def test_a_share_of_independent_items_has_wilsons_binomial_interval(published):
    """Where every item is its own cluster, the effective size is the item
    count and the interval is scipy's Wilson interval for the binomial
    count."""
    rows = published.execute(
        "select set_id, metric, metric_value, n_obs, ci_low, ci_high from marts.history_set_metrics "
        "where ci_method = 'wilson' and n_obs = n_clusters and n_obs > 1"
    ).fetchall()
    assert rows
    for set_id, metric, value, n, low, high in rows:
        k = round(value * n)
        assert k == pytest.approx(value * n, abs=1e-9)
        interval = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert (low, high) == pytest.approx((interval.low, interval.high), rel=REL, abs=1e-12), (set_id, metric)


# Each imported tool's items per (set, scorer, metric) of its set mart, one
# value per sample (every sample of the sample drops is its own cluster),
# with the range and whether the figure is a share. The shares: OpenAI
# Evals' match accuracy (seed history_metrics), EvalVault's pass rates,
# lm-eval's acc / exact_match means (seed lm_eval_metric_aggregations);
# the rest are means within [0, 1] (Every Eval Ever: the file's
# min_score / max_score).
IMPORTED_ITEMS = {
    "openai_evals": """
        select set_id, scorer, case when scorer = 'match' then 'accuracy' else 'mean' end,
            list(value), 0.0, 1.0, scorer = 'match'
        from marts.openai_evals_item_scores where value is not null group by all""",
    "evalvault": """
        select set_id, scorer, 'pass_rate', list(case when is_pass then 1.0 else 0.0 end), 0.0, 1.0, true
        from marts.evalvault_item_scores group by all
        union all
        select set_id, scorer, 'mean', list(value), 0.0, 1.0, false
        from marts.evalvault_item_scores where scorer <> 'overall' and value is not null group by all""",
    "lm_eval": """
        select set_id, scorer, 'mean', list(value), 0.0, 1.0, true
        from marts.lm_eval_item_scores
        where aggregation = 'mean' and metric_name in ('acc', 'acc_norm', 'exact_match') group by all""",
    "every_eval_ever": """
        select items.set_id, scores.scorer, scores.metric, list(items.value), scores.min_score, scores.max_score,
            scores.score_type = 'binary'
        from marts.every_eval_ever_item_scores as items
        inner join marts.every_eval_ever_set_scores as scores
            on items.set_id = scores.set_id and items.result_index = scores.result_index
        where items.value is not null group by all""",
}


@pytest.mark.parametrize("tool", sorted(IMPORTED_ITEMS))
def test_imported_tool_intervals_lie_within_the_scale(published, tool):
    """An imported tool's set interval is reported within the scale, as the
    history's: a share gets scipy's Wilson interval for its binomial count,
    a mean the t interval (sd ddof 1 / sqrt(n)) cut at the scale's ends;
    computed here from the item values. The sample drops have, for each
    tool, a set of few items whose t interval leaves [0, 1] (before: e.g.
    an OpenAI Evals match accuracy of 4/6 reported [0.125, 1.209])."""
    reported = {
        row[:3]: row[3:]
        for row in published.execute(
            f"select set_id, scorer, metric, value, n_samples, ci_low, ci_high from marts.{tool}_set_scores "
            "where std_error is not null"
        ).fetchall()
    }
    items = published.execute(IMPORTED_ITEMS[tool]).fetchall()
    leaves_scale = 0
    for set_id, scorer, metric, values, lo, hi, is_share in items:
        if (set_id, scorer, metric) not in reported or len(values) < 2:
            continue
        value, n, low, high = reported[(set_id, scorer, metric)]
        values = [float(v) for v in values]
        value, low, high, lo, hi = (float(x) for x in (value, low, high, lo, hi))
        assert n == len(values), (set_id, scorer, metric)
        mean = sum(values) / n
        assert value == pytest.approx(mean, rel=REL, abs=1e-12)
        half = t975(n - 1) * statistics.stdev(values) / math.sqrt(n)
        leaves_scale += mean - half < lo or mean + half > hi
        if is_share:
            k = round(sum(values))
            interval = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
            expected = (interval.low, interval.high)
        else:
            expected = (max(mean - half, lo), min(mean + half, hi))
        assert (low, high) == pytest.approx(expected, rel=REL, abs=1e-12), (set_id, scorer, metric)
        assert lo <= low <= high <= hi, (set_id, scorer, metric)
    assert leaves_scale, f"{tool}: no set whose t interval leaves the scale"


# The set-mart row each imported tool's history metric takes its value
# from (int_<tool>__set_metrics): its scorer's mean, accuracy or share.
HISTORY_OF_IMPORTED = {
    "inspect": "select set_id, scorer, ci_low, ci_high from marts.inspect_set_scores where metric = 'accuracy'",
    "lm_eval": "select set_id, scorer, ci_low, ci_high from marts.lm_eval_set_scores where metric = 'mean'",
    "openai_evals": "select set_id, scorer, ci_low, ci_high from marts.openai_evals_set_scores "
    "where metric = case when scorer = 'match' then 'accuracy' else 'mean' end",
    "every_eval_ever": "select set_id, history_metric, ci_low, ci_high from marts.every_eval_ever_set_scores",
}


@pytest.mark.parametrize("tool", sorted(HISTORY_OF_IMPORTED))
def test_an_imported_scorers_history_interval_is_its_set_marts(published, tool):
    """A scorer of an imported tool whose scale seed history_metrics does
    not declare (the tool's '*' row) is reported in the history within the
    scale its data declares, the same interval as its set mart (checked
    against scipy by the test before; every sample of the sample drops is
    its own cluster). Before, the overview showed lm-eval's strict-match
    0.167 with 95% [-0.262, 0.595] and Inspect's match [0.305, 1.070]."""
    expected = {
        (set_id, metric): (low, high)
        for set_id, metric, low, high in published.execute(HISTORY_OF_IMPORTED[tool]).fetchall()
        if low is not None
    }
    rows = published.execute(
        "select set_id, metric, ci_low, ci_high from marts.history_set_metrics "
        "where agent = ? and std_error is not null and n_obs = n_clusters",
        [tool],
    ).fetchall()
    compared = 0
    for set_id, metric, low, high in rows:
        if (set_id, metric) in expected:
            assert (low, high) == pytest.approx(expected[(set_id, metric)], rel=REL, abs=1e-12), (set_id, metric)
            compared += 1
    assert compared, f"{tool}: no history metric with its set mart's interval"


def test_few_clusters_are_flagged_and_the_pages_say_so(published, demo_warehouse):
    rows = published.execute("select n_clusters, is_few_clusters from marts.history_set_metrics").fetchall()
    assert all(few == (n is None or n < 5) for n, few in rows)
    assert any(few for _, few in rows) and not all(few for _, few in rows)
    [(set_id,)] = published.execute(
        "select set_id from marts.history_set_metrics where is_few_clusters and n_clusters > 1 and is_latest "
        "and agent = 'recruit_agent' limit 1"
    ).fetchall()
    page = create_app(demo_warehouse.paths.published_db).test_client().get("/set", query_string={"id": set_id})
    assert page.status_code == 200
    assert "too few clusters" in page.get_data(as_text=True)


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
