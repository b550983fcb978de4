"""The viewer over the demo warehouse (the bundled sample drops, built once
per session and read in place): every table of every kind of page has a
CSV and a Parquet link carrying the page's filters, and its download holds
the table's rows; every link of the compare pages of each agent's sets
answers; and the newcomer's path of docs/compare.md, followed by its links
from the overview to the pass→fail items of two sets."""

from __future__ import annotations

import html
import itertools
import re
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import duckdb
import pytest

from agent_eval.viewer import create_app

SUMMARY = "2026-11-01/summary_agent_notes.json"

# per download, the column its rows are matched on and the cell of the
# page's row that shows it (index among the row's cells)
KEYS = {
    "series_index": ("series_id", 1),
    "series": ("set_id", 1),
    "set_gates": ("gate_id", 0),
    "rounds": ("round", 0),
    "scores": ("n_items", 1),
    "latency": ("segment", 0),
    "percentiles": ("segment", 0),
    "items": ("line_number", 0),
    "eval_scores": ("scorer", 0),
    "eval_items": ("sample_id", 0),
    "eval_sample": ("scorer", 0),
    "item_checks": ("check_seq", 0),
    "item_rounds": ("line_number", 0),
    "compare_items": ("query_id", 0),
    "summary_cases": ("case_id", 0),
    "summary_review_queue": ("case_id", 0),
    "engagement_runs": ("run_id", 1),
    "engagement_run_metrics": ("metric", 0),
    "engagement_personas": ("persona", 0),
}


@pytest.fixture(scope="module")
def client(demo_warehouse: Any) -> Any:
    return create_app(demo_warehouse.paths.published_db).test_client()


@pytest.fixture(scope="module")
def published(demo_warehouse: Any) -> Any:
    con = duckdb.connect(str(demo_warehouse.paths.published_db), read_only=True)
    yield con
    con.close()


def get(client: Any, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def hrefs(page: str) -> list[str]:
    """The page's links (href), unescaped, without their fragment."""
    return [html.unescape(h).split("#")[0] for h in re.findall(r'href="([^"#][^"]*)"', page)]


def text(cell: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()


def cells(row: str) -> list[str]:
    return [text(c) for c in re.findall(r"<t[dh](?:\s[^>]*)?>(.*?)</t[dh]>", row, re.S)]


def body_rows(table: str) -> list[str]:
    """The rows of a table's body, without a placeholder row ("No … matches")."""
    body = table.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [r for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S) if "colspan" not in r]


def read_back(client: Any, url: str) -> tuple[list[str], list[tuple]]:
    """A downloaded file's columns and rows, as DuckDB reads it."""
    response = client.get(url)
    assert response.status_code == 200, (url, response.get_data(as_text=True)[:300])
    fmt = "parquet" if re.match(r"/download/\w+\.parquet", url) else "csv"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"t.{fmt}"
        path.write_bytes(response.get_data())
        with duckdb.connect() as con:
            reader = "read_parquet(?)" if fmt == "parquet" else "read_csv(?, header = true)"
            cursor = con.execute(f"select * from {reader}", [str(path)])
            return [d[0] for d in cursor.description], cursor.fetchall()


def shown(value: Any) -> list[str]:
    """How a cell may show a value: as is, or with thousands separators."""
    return [str(value), f"{value:,}"] if isinstance(value, int) else [str(value)]


def tables_with_downloads(page: str) -> list[tuple[str, str | None]]:
    """Each table of the page and the last download link between the
    previous table and it (its title's links), or None."""
    parts = page.split("<table")
    found = []
    for before, table in itertools.pairwise(parts):
        links = re.findall(r'href="(/download/\w+\.csv(?:\?[^"]*)?)"', before.rsplit("</table>", 1)[-1])
        found.append((table.split("</table>", 1)[0], html.unescape(links[-1]) if links else None))
    return found


def check_page(client: Any, url: str) -> set[str]:
    """Every table of the page has its downloads, in both formats the same
    rows, and those rows are the table's: as many, and each row's key
    shown in its cell, in order. The names of the tables checked."""
    names = set()
    page = get(client, url)
    # a page that shows one page of its rows (the download has them all)
    paged = re.search(r"page 1 of (?!1\b)[\d,]+|the first \d+ shown", page) is not None
    for table, link in tables_with_downloads(page):
        assert link is not None, (url, table[:200])
        name = re.match(r"/download/(\w+)\.csv", link).group(1)
        names.add(name)
        columns, found = read_back(client, re.sub(r"\.csv\b", ".parquet", link, count=1))
        _, as_csv = read_back(client, link)
        assert len(as_csv) == len(found), link
        page_rows = [cells(r) for r in body_rows(table)]
        if name == "compare_metrics":
            # the grid: a row per set, a column per metric; the download a
            # row per (other set, metric) with a value (a cell with a number)
            others = body_rows(table)[1:] if 'data-set="' in table else []
            n_cells = sum(len(re.findall(r'<td><span class="n">', r)) for r in others)
            assert len(found) == n_cells, (url, link)
            continue
        if name == "compare_item":
            # one item of two sets: its row, both answers whole
            [row] = [dict(zip(columns, r)) for r in found]
            a, b = (text(c) for c in re.findall(r'<td class="text">(.*?)</td>', table, re.S)[:2])
            assert (a, b) == ((row["message_a"] or "").strip(), (row["message_b"] or "").strip()), url
            continue
        assert len(found) == len(page_rows) or (paged and len(found) > len(page_rows)), (url, link, len(found))
        column, index = KEYS[name]
        for row, cells_of_row in zip(found, page_rows):
            value = row[columns.index(column)]
            assert any(cells_of_row[index].startswith(s) for s in shown(value)), (url, link, value, cells_of_row)
    return names


# ---------------------------------------------------------------- downloads


def newest_sets(published: Any) -> dict[str, str]:
    """Each agent's newest set of the demo (a set with a baseline, where
    the agent has two nights)."""
    return dict(
        published.execute(
            "select agent, arg_max(set_id, drop_date) from marts.history_set_metrics group by agent order by agent"
        ).fetchall()
    )


def test_every_table_of_every_page_downloads_its_rows(client, published):
    """A page of each kind, for each agent of the demo: the overview, the
    series, its newest set's page (items, an imported run's items and one
    sample, the summary's and an engagement run's own tables), item pages,
    the compare against the baseline and an item of it side by side, the
    engagement runs. Each table's download is its rows, filters applied."""
    pages = ["/", "/series/all", "/engagement"]
    pages.append(next(h for h in hrefs(get(client, "/series/all")) if h.startswith("/series?id=")))
    for set_id in newest_sets(published).values():
        page = "/set?" + urlencode({"id": set_id, "per_page": 200})
        links = hrefs(get(client, page))
        # item pages (agents with item pages: a recruit item has checks) and an imported run's sample
        pages += [page, *[h for h in links if h.startswith("/item?")][:2]]
        pages += [h for h in links if h.startswith("/set?") and "sample=" in h][:1]
        compare = "/compare?" + urlencode({"set": set_id})
        pages += [compare, *[h for h in hrefs(get(client, compare)) if h.startswith("/compare/item?")][:1]]
    # the summary's case table filtered to a failed metric: the link carries the filter
    filtered = "/set?" + urlencode({"id": SUMMARY, "below": "summary_accuracy"})
    pages.append(filtered)
    [link] = [h for h in hrefs(get(client, filtered)) if h.startswith("/download/summary_cases.parquet")]
    assert parse_qs(urlsplit(link).query)["below"] == ["summary_accuracy"]
    names = set()
    for page in dict.fromkeys(pages):
        names |= check_page(client, page)
    assert names >= set(KEYS) | {"compare_metrics", "compare_item"}, set(KEYS) - names


def test_an_agents_tables_download_through_its_own_package():
    """The shared downloads name no agent's table: an agent's pages add
    theirs in its viewer part (DOWNLOADS), and the names do not collide."""
    from agent_eval import registry
    from agent_eval.viewer import downloads

    source = Path(downloads.__file__).read_text(encoding="utf-8")
    contributed = downloads.agent_tables()
    assert {"summary_cases", "engagement_personas"} <= set(contributed)
    assert not set(contributed) & set(downloads.TABLES)
    for agent in registry.registered():
        assert agent.name not in source, agent.name
        for name in getattr(agent.part("viewer"), "DOWNLOADS", {}):
            assert contributed[name].__module__ == f"{agent.python_module}.viewer"
            assert name not in source


# ---------------------------------------------------------------- compare links


def test_every_link_of_each_agents_compare_pages_answers(client, published):
    """For each agent of the demo: the compare of its first three sets
    (the first as the reference) and of its newest set against its
    baseline (or the picker, for an agent with one night), and each item of
    them side by side: every link on those pages answers 200 (an item's
    line links to /item only for an agent with item pages; the side by
    side pages' own downloads are checked above)."""
    by_agent: dict[str, list[str]] = {}
    for agent, set_id in published.execute(
        "select agent, set_id from marts.history_set_metrics group by all order by agent, min(drop_date), set_id"
    ).fetchall():
        by_agent.setdefault(agent, []).append(set_id)
    pages = []
    for agent, newest in newest_sets(published).items():
        pages.append(get(client, "/compare?" + urlencode({"set": newest})))
        if len(by_agent[agent]) > 1:
            pages.append(get(client, "/compare?" + urlencode([("sets", s) for s in by_agent[agent][:3]])))
    answered: dict[str, int] = {}
    while pages:
        for link in hrefs(pages.pop()):
            if link not in answered:
                response = client.get(link)
                answered[link] = response.status_code
                if link.startswith("/compare/item?") and response.status_code == 200:
                    # its links too (the two items' lines), but its downloads
                    page = response.get_data(as_text=True)
                    pages.append(re.sub(r'href="/download/[^"]*"', "", page))
    failed = {link: status for link, status in answered.items() if status != 200}
    assert not failed, list(failed.items())[:10]
    side_by_side = [link for link in answered if link.startswith("/compare/item?")]
    assert {parse_qs(urlsplit(link).query)["sets"][0] for link in side_by_side}  # items of several agents paired
    assert len({re.sub(r"&.*", "", link) for link in side_by_side}) > 5
    assert any(link.startswith("/item?") for link in answered)  # agents with item pages keep the link


def test_every_link_of_the_overview_and_each_index_page_answers(client):
    """The overview and every page its links reach in one step (the agents'
    index pages among them): each link on them answers 200. A run listed on
    an agent's index page links to a set page only where one exists (an
    engagement run without expected answers has no metrics to show)."""
    overview = get(client, "/")
    pages = {"/": overview}
    for link in hrefs(overview):
        if not link.startswith("/download/") and link not in pages:
            pages[link] = get(client, link)
    answered: dict[str, int] = {}
    for page in pages.values():
        for link in hrefs(page):
            if link.startswith("/") and not link.startswith("/download/") and link not in answered:
                answered[link] = client.get(link).status_code
    failed = {link: status for link, status in answered.items() if status != 200}
    assert not failed, list(failed.items())[:10]
    assert any(link.startswith("/engagement") for link in pages)  # an agent's index page was reached


# ---------------------------------------------------------------- the newcomer's path


def form_url(page: str, form_class: str) -> str:
    """Submitting the page's form (GET) with its fields as they stand: each
    select's selected option, each hidden input, in the page's order."""
    form = page.split(f'class="{form_class}"', 1)[1].split("</form>", 1)[0]
    action = html.unescape(re.search(r'action="([^"]*)"', form).group(1))
    fields = []
    for match in re.finditer(
        r'<select name="(\w+)">(.*?)</select>|<input type="hidden" name="(\w+)" value="([^"]*)"', form, re.S
    ):
        if match.group(1):
            [chosen] = re.findall(r'<option value="([^"]*)" selected', match.group(2))
            fields.append((match.group(1), html.unescape(chosen)))
        else:
            fields.append((match.group(3), html.unescape(match.group(4))))
    return f"{action}?{urlencode(fields)}"


def test_a_newcomer_goes_from_the_overview_to_the_pass_to_fail_items_of_two_sets(client, published):
    """docs/compare.md, done when: from the demo's overview a newcomer opens
    a set, picks another set of the same agent ("compare with…", the
    baseline preselected) and sees the pass→fail items at the top, each
    with both answers, and the significance of each metric's change. Every
    step follows the page's links and forms; the expected items are worked
    out from the items mart (pass in A, fail in B, by query and round)."""
    overview = get(client, "/")
    cards = [h for h in hrefs(overview) if h.startswith("/set?id=")]
    # the newcomer opens the card of a set with items that lost passes
    flips = dict(published.execute("select set_id, n_pass_fail from marts.history_flip_tests").fetchall())
    opened = max(cards, key=lambda h: flips.get(parse_qs(urlsplit(h).query)["id"][0], 0))
    set_id = parse_qs(urlsplit(opened).query)["id"][0]
    set_page = get(client, opened)
    compare_url = form_url(set_page, "compare-picker")
    chosen, shown_set = parse_qs(urlsplit(compare_url).query)["sets"]
    assert shown_set == set_id and chosen != set_id
    agents = dict(
        published.execute("select set_id, any_value(agent) from marts.history_set_metrics group by 1").fetchall()
    )
    assert agents[chosen] == agents[set_id]
    page = get(client, compare_url)

    # pass in A (the picked set), fail in B (the opened one), by key
    items = {
        s: {
            (q, r): (p, m)
            for q, r, p, m in published.execute(
                "select query_id, round, is_pass, message from marts.history_items where set_id = ?", [s]
            ).fetchall()
        }
        for s in (chosen, set_id)
    }
    a, b = items[chosen], items[set_id]
    pass_to_fail = {k for k in a if k in b and a[k][0] and not b[k][0]}
    assert pass_to_fail
    changed = page.split("<h3>Changed", 1)[1]
    rows = re.findall(r'<tr class="(\w+)">(.*?)</tr>', changed.split("</table>", 1)[0], re.S)
    top = rows[: len(pass_to_fail)]
    assert {(cells(r)[0], cells(r)[1]) for _, r in top} == pass_to_fail
    assert all(cls == "fail" and cells(r)[2] == "pass to fail" for cls, r in top)
    assert "pass to fail" not in [cells(r)[2] for _, r in rows[len(pass_to_fail) :]]
    for _, row in top:
        key = (cells(row)[0], cells(row)[1])
        answers = [text(c) for c in re.findall(r'<td class="text">(.*?)</td>', row, re.S)]
        assert answers == [(a[key][1] or "").strip(), (b[key][1] or "").strip()], key
    # the significance of each metric's change: B's row of the grid, every metric
    grid = page.split('<table class="compare-grid">', 1)[1].split("</table>", 1)[0]
    metrics = re.findall(r'<span class="muted">(\w+)</span></th>', grid.split("</thead>", 1)[0])
    row_b = grid.split(f'<tr data-set="{html.escape(set_id)}">', 1)[1].split("</tr>", 1)[0]
    significance = re.findall(r"p ([\d.]+) · Holm p ([\d.]+)<br>\s*<span class=\"badge verdict-", row_b)
    assert len(metrics) >= 2 and len(significance) == len(metrics)
    assert "Holm's correction across the metrics" in page
