"""The compare (docs/compare.md): any two sets of one agent, items paired, on
a hand-made pair; its figures against an independent computation (numpy for
the clustered error, scipy for the t and binomial tails), against the
history marts when the second set is the first one's next night, in the
published file, and through `agent-eval compare`.

tests/fixtures/compare: resume sets, 8 queries x rounds 1/1 and 2/1.
  2026-11-20/resume_agent_cmp_a.csv  (A)   16 items
  2026-11-20/resume_agent_cmp_b.csv  (B)   another series: Q8 2/1 missing, Q9 1/1 added
  2026-11-21/resume_agent_cmp_a.csv  (A2)  A's next night (its baseline is A): 16 items
Pass = stability 5 = status ok or partial; an error fails (seed
history_pass_rules). A vs B by key (o ok, p partial, e error):
  Q1 o>e  o>o | Q2 o>o p>o | Q3 e>o o>e | Q4 o>p o>o
  Q5 p>p  e>o | Q6 o>e o>o | Q7 o>o o>e | Q8 e>e, 2/1 only in A | Q9 1/1 only in B
  pass->fail b = 4 (Q1 1/1, Q3 2/1, Q6 1/1, Q7 2/1), fail->pass c = 2
  (Q3 1/1, Q5 2/1): exact McNemar p = 2 P(X <= 2), X ~ Bin(6, 1/2)
  = 2 (1 + 6 + 15) / 64 = 0.6875; 15 pairs, 1 only in A, 1 only in B.
tests/fixtures/summary_basic adds two summary sets (cases, no items):
  2026-11-03/summary_claims.json and 2026-11-03/summary_bom.json.
"""

from __future__ import annotations

import json
import re
import tempfile
import unicodedata
from collections import defaultdict
from html import unescape
from pathlib import Path
from urllib.parse import unquote

import duckdb
import numpy as np
import pytest
from scipy import stats
from werkzeug.datastructures import MultiDict

from agent_eval import cli, compare
from agent_eval.cli import EXIT_OK, EXIT_USAGE

A = "2026-11-20/resume_agent_cmp_a.csv"
B = "2026-11-20/resume_agent_cmp_b.csv"
A2 = "2026-11-21/resume_agent_cmp_a.csv"
MEASURES = {
    "pass_rate": "cast(is_pass as integer)",
    "accuracy_score": "accuracy_score",
    "stability_score": "stability_score",
    "latency_score": "latency_score",
    "latency_sec": "latency_sec",
}


@pytest.fixture(scope="module")
def wh(module_built):
    # summary_basic: sets of an agent without items (the metrics-only compare)
    warehouse, _ = module_built("compare", "summary_basic")
    return warehouse


@pytest.fixture(scope="module")
def published(wh):
    return wh.paths.published_db


def metric_rows(db, set_a, set_b):
    with duckdb.connect(str(db), read_only=True) as con:
        cursor = con.execute("select * from marts.compare_metrics(?, ?)", [set_a, set_b])
        names = [d[0] for d in cursor.description]
        return {r["metric"]: r for r in (dict(zip(names, row)) for row in cursor.fetchall())}


def item_values(wh, set_id):
    """{(query, round): {measure: value}} of a set's items (the agent's item
    scores: inputs of the compare, not its output)."""
    cols = ", ".join(f"{expr} as {name}" for name, expr in MEASURES.items())
    out = {}
    for q, r, *values in wh.query(
        f"select query_id, round, {cols} from marts.history_items where set_id = ?", [set_id]
    ):
        out[(q, r)] = dict(zip(MEASURES, values))
    return out


def expected_paired(wh, set_a, set_b, measure):
    """delta, se, p from the definitions: the mean over rounds of the round
    means of the paired differences d = y_b - y_a; CR1 clustered by query,
    V = G / (G - 1) sum_g (sum_{i in g} w_i (d_i - delta))^2 with
    w_i = 1 / (rounds x items in the round); t with G - 1 df."""
    a, b = item_values(wh, set_a), item_values(wh, set_b)
    diffs = [
        (q, r, b[(q, r)][measure] - a[(q, r)][measure])
        for (q, r) in a
        if (q, r) in b and a[(q, r)][measure] is not None and b[(q, r)][measure] is not None
    ]
    by_round = defaultdict(list)
    for _, r, d in diffs:
        by_round[r].append(d)
    delta = float(np.mean([np.mean(v) for v in by_round.values()]))
    sums = defaultdict(float)
    for q, r, d in diffs:
        sums[q] += (d - delta) / (len(by_round) * len(by_round[r]))
    g = len(sums)
    se = float(np.sqrt(g / (g - 1) * np.sum(np.square(list(sums.values())))))
    p = 1.0 if se == 0 and delta == 0 else float(2 * stats.t.sf(abs(delta / se), g - 1))
    return delta, se, g, p


def test_pairs_counted_and_changed_items_first(published):
    with duckdb.connect(str(published), read_only=True) as con:
        got = compare.items(con, A, B)
        counts = compare.change_counts(con, A, B)
    assert counts["pass_to_fail"] == 4
    assert counts["fail_to_pass"] == 2
    assert (counts["only_a"], counts["only_b"]) == (1, 1)
    assert sum(counts.values()) == 17  # 15 pairs + 1 + 1: no item dropped
    changes = [r["change"] for r in got]
    assert changes[:6] == ["pass_to_fail"] * 4 + ["fail_to_pass"] * 2
    assert {(r["query_id"], r["round"]) for r in got[:4]} == {
        ("Q1", "1/1"),
        ("Q3", "2/1"),
        ("Q6", "1/1"),
        ("Q7", "2/1"),
    }
    assert [(r["query_id"], r["round"]) for r in got if r["change"] == "only_a"] == [("Q8", "2/1")]
    assert [(r["query_id"], r["round"]) for r in got if r["change"] == "only_b"] == [("Q9", "1/1")]
    # both answers on each row
    first = got[0]
    assert first["message_a"] and first["message_b"] == "시간 초과"
    # changed scores by size, then the unchanged
    scored = [r["score_change"] for r in got if r["change"] == "score_changed"]
    assert scored == sorted(scored, reverse=True) and all(s > 0 for s in scored)
    assert changes.index("unchanged") > len(changes) - 1 - changes[::-1].index("score_changed")


def test_each_changes_first_items_are_the_full_orders(published):
    """compare_changed_items(A, B, n): of each change the first n items of
    compare_items' order, with the change's count (the fixture's: 4
    pass->fail, 2 fail->pass, 1 only in A, 1 only in B; 17 keys)."""
    with duckdb.connect(str(published), read_only=True) as con:
        everything = compare.items(con, A, B)
        firsts = {n: compare.items(con, A, B, per_change=n) for n in (1, 3)}
    counts = {c: sum(r["change"] == c for r in everything) for c in {r["change"] for r in everything}}
    assert (counts["pass_to_fail"], counts["fail_to_pass"], counts["only_a"], counts["only_b"]) == (4, 2, 1, 1)
    assert sum(counts.values()) == 17
    for n, got in firsts.items():
        expected = [
            r for r in everything if [s["change"] for s in everything[: everything.index(r)]].count(r["change"]) < n
        ]
        assert [{k: v for k, v in r.items() if k != "n_change"} for r in got] == expected, n
        assert all(r["n_change"] == counts[r["change"]] for r in got)
    assert len(firsts[3]) == 3 + 2 + min(3, counts["score_changed"]) + min(3, counts["unchanged"]) + 1 + 1


def test_one_pairing_answers_as_the_two_macros(published):
    """compare_pair(A, B, n) pairs the items once for both tables of a page:
    its metric rows are compare_metrics', its item rows
    compare_changed_items'; its plan holds one full outer join of the two
    sets, where the two macros hold one each. compare(versus=B, top_n=n)
    returns them as the CLI's compare and items(per_change=n) do."""
    with duckdb.connect(str(published), read_only=True) as con:
        cursor = con.execute("select * from marts.compare_pair(?, ?, ?)", [A, B, 2])
        names = [d[0] for d in cursor.description]
        both = [dict(zip(names, row)) for row in cursor.fetchall()]
        metric_cols = [d[0] for d in con.execute("select * from marts.compare_metrics(?, ?)", [A, B]).description]
        item_cols = [
            d[0] for d in con.execute("select * from marts.compare_changed_items(?, ?, ?)", [A, B, 2]).description
        ]
        assert [{c: r[c] for c in metric_cols} for r in both if r["row_type"] == "metric"] == list(
            metric_rows(published, A, B).values()
        )
        assert [{c: r[c] for c in item_cols} for r in both if r["row_type"] == "item"] == compare.items(
            con, A, B, per_change=2
        )
        plan = "".join(
            r[1] for r in con.execute("explain select * from marts.compare_pair(?, ?, ?)", [A, B, 2]).fetchall()
        )
        assert plan.count("FULL") == 1
        together = compare.compare(con, [A, B, A2], versus=B, top_n=2)
        apart = compare.compare(con, [A, B, A2])
        assert together.metrics == apart.metrics
        assert together.changed_items == compare.items(con, A, B, per_change=2)
        with pytest.raises(compare.CompareError, match="versus"):
            compare.compare(con, [A, B], versus=A, top_n=2)


def test_figures_agree_with_an_independent_computation(wh, published):
    rows = metric_rows(published, A, B)
    assert set(rows) == set(MEASURES)
    for metric, row in rows.items():
        delta, se, g, p_t = expected_paired(wh, A, B, metric)
        assert row["delta"] == pytest.approx(delta, abs=1e-9), metric
        assert row["value_b"] - row["value_a"] == pytest.approx(row["delta"], abs=1e-9)
        assert row["std_error"] == pytest.approx(se, rel=1e-9, abs=1e-12), metric
        assert row["n_clusters"] == g
        t = stats.t.ppf(0.975, g - 1)
        assert row["ci_low"] == pytest.approx(delta - t * se, abs=1e-6)
        assert row["ci_high"] == pytest.approx(delta + t * se, abs=1e-6)
        if metric == "pass_rate":
            assert row["test"] == "mcnemar_exact"
            assert row["p_value"] == pytest.approx(stats.binomtest(2, 6, 0.5).pvalue, abs=1e-12)
            assert row["p_value"] == pytest.approx(0.6875, abs=1e-12)
        else:
            assert row["test"] == "cluster_robust_t"
            assert row["p_value"] == pytest.approx(p_t, abs=1e-9), metric
        assert (row["n_paired"], row["n_only_a"], row["n_only_b"]) == (15, 1, 1)
        assert (row["n_pass_fail"], row["n_fail_pass"]) == (4, 2)
    # Holm: sorted p, the k-th times (m - k + 1), running max, capped at 1
    ordered = sorted(rows.values(), key=lambda r: (r["p_value"], r["metric"]))
    running = 0.0
    for k, row in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - k) * row["p_value"]))
        assert row["p_holm"] == pytest.approx(running, abs=1e-9), row["metric"]


def test_t_tail_matches_scipy_over_degrees_of_freedom(published):
    """The t tail the p-values use (macro t_two_sided_p), through the
    compare's own rows: each row's p from its delta / se and G - 1."""
    rows = metric_rows(published, A, B)
    for row in rows.values():
        if row["test"] == "cluster_robust_t" and row["std_error"]:
            expected = 2 * stats.t.sf(abs(row["delta"] / row["std_error"]), row["n_clusters"] - 1)
            assert row["p_value"] == pytest.approx(expected, abs=1e-9)


def test_equals_the_history_marts_against_the_baseline(wh):
    """A2's baseline is A (the previous night of its series): the compare of
    (A, A2) has history_metric_diffs' delta for every metric both have and
    history_flip_tests' table and p-value. (Its interval is the paired one,
    narrower than the history's, which treats the nights as independent.)"""
    rows = metric_rows(wh.paths.db_path, A, A2)
    diffs = {
        m: (d, base)
        for m, d, base in wh.query(
            "select metric, delta, baseline_set_id from marts.history_metric_diffs where set_id = ?", [A2]
        )
    }
    shared = set(rows) & set(diffs)
    assert {"accuracy_score", "stability_score", "latency_score", "latency_sec"} <= shared
    for metric in shared:
        delta, base = diffs[metric]
        assert base == A
        assert rows[metric]["delta"] == pytest.approx(delta, abs=1e-9), metric
    [(b, c, p)] = wh.query(
        "select n_pass_fail, n_fail_pass, p_value from marts.history_flip_tests where set_id = ?", [A2]
    )
    assert (rows["pass_rate"]["n_pass_fail"], rows["pass_rate"]["n_fail_pass"]) == (b, c)
    assert rows["pass_rate"]["p_value"] == pytest.approx(p, abs=1e-12)


def test_the_published_file_answers_as_the_warehouse(wh, published):
    assert metric_rows(published, A, B) == metric_rows(wh.paths.db_path, A, B)


def run_cli(capsys, wh, *args):
    code = cli.main(["compare", "--db", str(wh.paths.db_path), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_json_csv(capsys, wh, published):
    code, out, _ = run_cli(capsys, wh, A, B, A2)
    assert code == EXIT_OK
    assert f"B = {B}" in out and f"B = {A2}" in out
    assert "15 paired, 1 only in A, 1 only in B; pass→fail 4, fail→pass 2" in out
    assert "0.6875" in out  # McNemar's p of pass_rate, A vs B
    code, out, _ = run_cli(capsys, wh, "--json", A, B)
    assert code == EXIT_OK
    doc = json.loads(out)
    assert doc["agent"] == "resume_agent" and doc["reference"] == A
    assert {s["set_id"]: s["n_items"] for s in doc["sets"]} == {A: 16, B: 16}
    by_metric = {r["metric"]: r for r in doc["metrics"]}
    expected = metric_rows(published, A, B)
    for metric, row in expected.items():
        assert by_metric[metric]["delta"] == row["delta"]
        assert by_metric[metric]["p_holm"] == row["p_holm"]
    code, out, _ = run_cli(capsys, wh, "--csv", A, B, A2)
    assert code == EXIT_OK
    lines = out.splitlines()
    assert lines[0].split(",") == list(compare.METRIC_COLUMNS)
    assert len(lines) == 1 + 2 * len(MEASURES)


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        ([A], "at least two sets"),
        ([A, A], "named twice"),
        ([A, "2026-11-20/nope.csv"], "no set 2026-11-20/nope.csv"),
    ],
)
def test_cli_refuses_what_it_cannot_compare(capsys, wh, sets, message):
    code, _, err = run_cli(capsys, wh, *sets)
    assert code == EXIT_USAGE
    assert message in err


def test_word_diff_is_by_words_and_hangul_aware():
    from agent_eval.viewer.pages import word_diff

    # a changed particle changes its word, the rest stays
    assert word_diff("주요 결과는 아래와 같습니다.", "주요 결과가 아래와 같습니다.") == [
        ("same", "주요 "),
        ("del", "결과는"),
        ("ins", "결과가"),
        ("same", " 아래와 같습니다."),
    ]
    # decomposed jamo (NFD) equal their precomposed syllables
    decomposed = unicodedata.normalize("NFD", "결과는 좋다")
    assert decomposed != "결과는 좋다"
    assert word_diff(decomposed, "결과는 나쁘다") == [("same", "결과는 "), ("del", "좋다"), ("ins", "나쁘다")]
    # a missing answer: all inserted
    assert word_diff(None, "답") == [("ins", "답")]


# ---------------------------------------------------------------- the viewer's downloads


@pytest.fixture(scope="module")
def client(published):
    from agent_eval.viewer.app import create_app

    return create_app(published).test_client()


def page_links(html, prefix):
    return [link.replace("&amp;", "&") for link in re.findall(r'href="(' + re.escape(prefix) + r'[^"]*)"', html)]


def read_back(response, fmt):
    """A downloaded file's rows, as DuckDB reads it (columns, rows)."""
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"t.{fmt}"
        path.write_bytes(response.get_data())
        with duckdb.connect() as con:
            reader = "read_parquet" if fmt == "parquet" else "read_csv_auto"
            cursor = con.execute(f"select * from {reader}(?)", [str(path)])
            return [d[0] for d in cursor.description], cursor.fetchall()


def test_every_table_of_the_set_and_compare_pages_downloads_as_csv_and_parquet(client):
    """Each table of a set page (metrics, gates, the four distributions, the
    items) and of the compare page (metrics, items and each section of them)
    has a CSV and a Parquet link, and each answers a file DuckDB reads with
    the same rows in both formats."""
    pages = {
        f"/set?id={A}": {"set_metrics", "set_gates", "rounds", "scores", "latency", "percentiles", "items"},
        f"/compare?sets={A}&sets={B}": {"compare_metrics", "compare_items"},
        "/series/all": {"series_index"},
        "/": {"overview"},
    }
    for page, tables in pages.items():
        links = page_links(client.get(page).get_data(as_text=True), "/download/")
        named = {re.match(r"/download/(\w+)\.(csv|parquet)", link).groups() for link in links}
        assert named == {(t, f) for t in tables for f in ("csv", "parquet")}, page
        for link in links:
            path, _, query = link.partition("?")
            if path.endswith(".csv"):
                _, csv_rows = read_back(client.get(link), "csv")
                _, parquet_rows = read_back(client.get(f"{path[:-4]}.parquet?{query}"), "parquet")
                assert len(csv_rows) == len(parquet_rows), link
    series_id = page_links(client.get("/series/all").get_data(as_text=True), "/series?id=")[0][len("/series?id=") :]
    links = page_links(client.get(f"/series?id={series_id}").get_data(as_text=True), "/download/series.parquet")
    per_metric = [link for link in links if "metric=" in link]
    assert len(links) == len(per_metric) + 1 and per_metric  # all metrics, then one per chart
    for link in per_metric:
        metric = re.search(r"metric=(\w+)", link).group(1)
        columns, found = read_back(client.get(link), "parquet")
        assert found and {r[columns.index("metric")] for r in found} == {metric}
        dates = [r[columns.index("drop_date")] for r in found]
        assert dates == sorted(dates)


def test_the_page_pairs_each_set_once(client, monkeypatch):
    """The page of A, B and A2 (versus B) pairs A with each other set once:
    B's metrics and changed items in one compare_pair call, A2's metrics in
    one compare_metrics call, no other call of a pairing macro."""
    from agent_eval import db

    called: list[str] = []
    original = db.fetch

    def recording(con, sql, params=()):
        called.extend(re.findall(r"marts\.(compare_\w+)\(", sql))
        return original(con, sql, params)

    monkeypatch.setattr(db, "fetch", recording)
    assert client.get(f"/compare?sets={A}&sets={B}&sets={A2}").status_code == 200
    assert sorted(called) == ["compare_metrics", "compare_pair"]


def test_downloaded_items_are_the_pages_filtered_rows(client, wh):
    """The item table filtered to the failures, sorted by latency: the
    Parquet and the CSV hold every row the page lists, in its order, and
    nothing else; the question and answer whole (the page cuts them)."""
    query = f"id={A}&result=fail&sort=latency_sec&dir=desc&per_page=200"
    html = client.get(f"/set?{query}").get_data(as_text=True)
    table = html.split('<table class="items">', 1)[1].split("</table>", 1)[0]
    lines = [int(n) for n in re.findall(r'class="item-link" href="[^"]*">(\d+)</a>', table)]
    shown = int(re.search(r"([\d,]+) matching", html).group(1).replace(",", ""))
    # the failures of A (an error fails): Q3 1/1, Q5 2/1, Q8 1/1 (the fixture's docstring)
    assert shown == len(lines) == 3
    [link] = page_links(html, "/download/items.parquet")
    assert "result=fail" in link and "sort=latency_sec" in link and "dir=desc" in link
    columns, found = read_back(client.get(link), "parquet")
    assert [r[columns.index("line_number")] for r in found] == lines
    assert {r[columns.index("is_pass")] for r in found} == {False}
    texts = dict(wh.query("select line_number, query_text from marts.resume_item_scores where set_id = ?", [A]))
    assert [r[columns.index("query_text")] for r in found] == [texts[n] for n in lines]
    _, as_csv = read_back(client.get(link.replace(".parquet?", ".csv?", 1)), "csv")
    assert [r[0] for r in as_csv] == lines


def test_downloaded_comparison_is_the_macros_rows(client, published):
    """The comparison's Parquet: compare_metrics of each set against A, in
    the sets' order; the changed items' section: the 4 pass->fail, then the
    2 fail->pass first, as the page lists them."""
    columns, found = read_back(client.get(f"/download/compare_metrics.parquet?sets={A}&sets={B}&sets={A2}"), "parquet")
    assert tuple(columns) == compare.METRIC_COLUMNS
    for other in (B, A2):
        expected = metric_rows(published, A, other)
        mine = [dict(zip(columns, r)) for r in found if r[columns.index("set_b")] == other]
        assert [r["metric"] for r in mine] == list(expected)
        assert all(r["delta"] == expected[r["metric"]]["delta"] for r in mine)
    html = client.get(f"/compare?sets={A}&sets={B}").get_data(as_text=True)
    changed = html.split("<h3>Changed", 1)[1].split("</table>", 1)[0]
    shown = re.findall(r"/compare/item\?[^\"]*query=([^&\"]+)&amp;round=([^&\"]+)\"", changed)
    [link] = page_links(changed, "/download/compare_items.parquet")
    columns, found = read_back(client.get(link), "parquet")
    changes = [r[columns.index("change")] for r in found]
    assert changes[:6] == ["pass_to_fail"] * 4 + ["fail_to_pass"] * 2
    assert set(changes) <= {"pass_to_fail", "fail_to_pass", "score_changed"}
    keys = [(r[columns.index("query_id")], r[columns.index("round")]) for r in found]
    assert [(q, unquote(r)) for q, r in shown] == keys


@pytest.mark.parametrize(
    ("path", "status"),
    [
        (f"/download/marts.history_items.csv?id={A}", 404),  # a table name is never SQL
        (f"/download/items.sql?id={A}", 404),
        (f"/download/items.parquet?id={A}&sort=line_number;drop table x", 400),
        (f"/download/items.parquet?id={A}&segment=1 or 1=1", 400),
        ("/download/items.parquet?id=' or 1=1 --", 404),
        (f"/download/compare_items.parquet?sets={A}&sets={B}&change=all", 400),
        (f"/download/compare_items.parquet?sets={A}&sets={B}&versus={A2}", 400),
    ],
)
def test_downloads_refuse_what_is_not_a_table_or_a_choice(client, path, status):
    assert client.get(path).status_code == status


def test_download_queries_carry_request_values_as_parameters_only(published):
    """Every request value reaches a download's query as a bound parameter:
    a marker in the free-text filter is in the parameters, never in the SQL."""
    from agent_eval.viewer import downloads
    from agent_eval.viewer.snapshots import Snapshots

    marker = "x' or '1'='1"
    snapshots = Snapshots(published)
    snapshot = snapshots.acquire()
    try:
        cur = snapshot.cursor()
        found = downloads.build(cur, "items", {"id": A, "q": marker})
        assert marker not in found.sql and any(marker in str(p) for p in found.params)
        assert downloads.build(cur, "compare_items", MultiDict([("sets", A), ("sets", B)])).sql.count("?") == 2
        cur.close()
    finally:
        snapshots.release(snapshot)


def grid_of(html):
    """{set: {metric: (value text, mark)}} of the page's grid, and the sets'
    order (rows)."""
    table = html.split('<table class="compare-grid">', 1)[1].split("</table>", 1)[0]
    metrics = re.findall(r'<span class="muted">(\w+)</span></th>', table.split("</thead>", 1)[0])
    order, cells = [], {}
    for row in table.split('<tr data-set="')[1:]:
        set_id = unescape(row.split('"', 1)[0])
        order.append(set_id)
        tds = row.split("<td>")[1:]
        cells[set_id] = {
            m: ("best" if 'class="best"' in td else "worst" if 'class="worst"' in td else None)
            for m, td in zip(metrics, tds)
        }
    return order, cells, metrics


def test_the_grid_marks_best_and_worst_and_sorts_the_sets_by_a_metric(client, published):
    """Three sets: per metric the best and worst value in the metric's good
    direction (min/max of the macros' values, worked out here) carry ★ and
    ▼; a metric's heading sorts the sets by it, best first, and its link
    then sorts the other way."""
    ab, aa2 = metric_rows(published, A, B), metric_rows(published, A, A2)
    query = f"/compare?sets={A}&sets={B}&sets={A2}"
    html = client.get(query).get_data(as_text=True)
    order, cells, metrics = grid_of(html)
    assert order == [A, B, A2] and set(metrics) == set(ab)
    for metric in metrics:
        values = {A: ab[metric]["value_a"], B: ab[metric]["value_b"], A2: aa2[metric]["value_b"]}
        sign = -1 if ab[metric]["direction"] == "lower_is_better" else 1
        best = max(values, key=lambda s: sign * values[s])
        worst = min(values, key=lambda s: sign * values[s])
        marks = {s: cells[s][metric] for s in values}
        if len(set(values.values())) == 1:
            assert set(marks.values()) == {None}, metric
        else:
            assert marks[best] == "best" and marks[worst] == "worst", (metric, values, marks)
    # latency_sec: lower is better, so best first is ascending
    values = {A: ab["latency_sec"]["value_a"], B: ab["latency_sec"]["value_b"], A2: aa2["latency_sec"]["value_b"]}
    html = client.get(f"{query}&sort=latency_sec").get_data(as_text=True)
    assert grid_of(html)[0] == sorted(values, key=values.get)
    [again] = [unescape(h) for h in re.findall(r'href="([^"]*sort=latency_sec[^"]*)"', html)]
    assert "dir=desc" in again
    assert grid_of(client.get(again.split("#")[0]).get_data(as_text=True))[0] == sorted(values, key=values.get)[::-1]
    assert client.get(f"{query}&sort=metric_order;drop").status_code == 400


CLAIMS = "2026-11-03/summary_claims.json"
BOM = "2026-11-03/summary_bom.json"


def test_sets_without_items_compare_by_their_metrics_with_a_note(capsys, client, wh):
    """Two summary sets (cases, no item table): the page, the CLI and the
    download show each set's own metrics (history_set_metrics) side by side
    and say that nothing is paired; no item table, no paired test."""
    values = {
        (s, m): v
        for s, m, v in wh.query(
            "select set_id, metric, metric_value from marts.history_set_metrics where set_id in (?, ?)", [CLAIMS, BOM]
        )
    }
    assert {m for _, m in values} >= {"summary_accuracy", "summary_risk_coverage"}
    response = client.get(f"/compare?sets={CLAIMS}&sets={BOM}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'id="metrics-only"' in html and "No items to pair" in html
    assert "<h2>Items" not in html and "Holm p" not in html.split('<table class="compare-grid">', 1)[1]
    table = html.split('<table class="compare-grid">', 1)[1].split("</table>", 1)[0]
    metrics = re.findall(r'<span class="muted">(\w+)</span></th>', table.split("</thead>", 1)[0])
    for row in table.split('<tr data-set="')[1:]:
        set_id = unescape(row.split('"', 1)[0])
        shown = [re.search(r'<span class="n">([^<]*)</span>', td) for td in row.split("<td>")[1:]]
        for metric, cell in zip(metrics, shown):
            assert cell.group(1) == f"{values[(set_id, metric)]:,.3f}", (set_id, metric)
    # the set page offers the compare too
    assert 'class="compare-picker"' in client.get(f"/set?id={CLAIMS}").get_data(as_text=True)
    # the CLI: the same note, exit 0; JSON marks it unpaired
    code, out, _ = run_cli(capsys, wh, CLAIMS, BOM)
    assert code == EXIT_OK and "No items to pair" in out
    code, out, _ = run_cli(capsys, wh, "--json", CLAIMS, BOM)
    doc = json.loads(out)
    assert code == EXIT_OK and doc["paired"] is False and "No items to pair" in doc["note"]
    assert {r["metric"]: r["value_b"] for r in doc["metrics"]} == {m: v for (s, m), v in values.items() if s == BOM}
    assert all(r["p_value"] is None and r["n_paired"] is None for r in doc["metrics"])
    # the download: the same rows; no item table to download
    columns, found = read_back(client.get(f"/download/compare_metrics.parquet?sets={CLAIMS}&sets={BOM}"), "parquet")
    assert {r[columns.index("metric")]: r[columns.index("value_a")] for r in found} == {
        m: v for (s, m), v in values.items() if s == CLAIMS
    }
    assert client.get(f"/download/compare_items.csv?sets={CLAIMS}&sets={BOM}").status_code == 400
    # sets of agents with and without items still do not mix
    assert client.get(f"/compare?sets={A}&sets={CLAIMS}").status_code == 400
