"""PNG charts beside the reports: files, links, font coverage, determinism.

One warehouse of the four agents' fixture drops is built once for the module
(the dbt build is the slow part); every test renders from it.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import duckdb
import matplotlib.figure
import matplotlib.image
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from PIL import Image

from agent_eval import charts, cli, registry, report
from conftest import Warehouse

pytestmark = [pytest.mark.dbt, pytest.mark.filterwarnings("error:Glyph .* missing")]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LINK = re.compile(r"!\[([^\]]*)\]\(([^)]*)\)")
HANGUL = re.compile(r"[\uac00-\ud7a3]")

RESUME_SET = "2026-11-01/resume_agent_basic.csv"
RECRUIT_SET = "2026-11-01/recruit_agent_basic.jsonl"
NO_EXPECTED_RUN = "2026-11-01/engagement/run-bad-expected"

# report (under reports/) -> the charts it links. A run without expected data
# has no metric to compare, and only run-worked has per-persona expectations.
EXPECTED_CHARTS = {
    "resume_agent/2026-11-01/resume_agent_basic.md": {"item_scores", "consistency", "latency_hist", "latency_scores"},
    "recruit_agent/2026-11-01/recruit_agent_basic.md": {"accuracy_scores", "consistency_scores", "latency_hist"},
    "summary/2026-11-03/summary_claims.md": {"metric_scores"},
    "summary/2026-11-03/summary_bom.md": {"metric_scores"},
    "engagement/2026-11-01/run-worked.md": {"expected_actual", "persona_expected_actual"},
    # run-worked has the same expected.json on both nights: a series of two,
    # so the second run has a trend; every other set is alone in its series
    "engagement/2026-11-02/run-worked.md": {"expected_actual", "persona_expected_actual", "trend"},
    "engagement/2026-11-01/run-rates.md": {"expected_actual"},
    "engagement/2026-11-01/run-expected-zero.md": {"expected_actual"},
    "engagement/2026-11-01/run-zero-weight.md": {"expected_actual"},
    "engagement/2026-11-01/run-bad-expected.md": set(),
}


@pytest.fixture(scope="module")
def built(module_warehouse: Callable[[str], Warehouse]) -> Warehouse:
    wh = module_warehouse("charts")
    for fixture in ("basic", "recruit_basic", "engagement", "summary_basic"):
        wh.add_fixture(fixture)
    # the charts read marts, not the data tests' verdicts: leave those out
    assert wh.build(data_tests=False) == cli.EXIT_REJECTED  # the fixtures hold deliberately bad input
    return wh


@pytest.fixture(scope="module")
def rendered(built: Warehouse) -> Path:
    report.render_all(built.paths.db_path, built.paths.reports_dir)
    return built.paths.reports_dir


def links(markdown: Path) -> list[tuple[str, Path]]:
    """(alt text, target path) of every image link of a report."""
    text = markdown.read_text(encoding="utf-8")
    return [(alt, markdown.parent / unquote(target)) for alt, target in LINK.findall(text)]


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk, checking its CRC."""
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR")
    (crc,) = struct.unpack(">I", data[16 + length : 20 + length])
    assert crc == zlib.crc32(data[12 : 16 + length])
    return struct.unpack(">II", data[16:24])


def test_each_report_links_exactly_its_charts(rendered):
    for name, expected in EXPECTED_CHARTS.items():
        md = rendered / name
        linked = {target.name.removeprefix(md.stem + ".").removesuffix(".png") for _, target in links(md)}
        assert linked == expected, name


def test_every_link_resolves_to_a_png_beside_its_report_and_no_png_is_orphaned(rendered):
    reports = sorted(rendered.rglob("*.md"))
    assert len(reports) == len(EXPECTED_CHARTS)
    linked: list[Path] = []
    for md in reports:
        for alt, target in links(md):
            assert HANGUL.search(alt), (md, alt)
            assert target.parent == md.parent and target.is_file(), (md, target)
            linked.append(target)
    assert sorted(linked) == sorted(rendered.rglob("*.png"))


def test_each_chart_is_a_valid_png_of_plausible_size(rendered):
    pngs = sorted(rendered.rglob("*.png"))
    assert len(pngs) == sum(map(len, EXPECTED_CHARTS.values()))
    for png in pngs:
        data = png.read_bytes()
        assert 5_000 < len(data) < 2_000_000, png
        width, height = png_size(data)
        assert width == charts.FIGURE_WIDTH_IN * charts.DPI, png
        assert 200 <= height <= 3_000, png
        with Image.open(png) as image:
            image.verify()


def test_the_font_covers_every_label_drawn(built, tmp_path):
    assert charts.font_path().name == "NanumGothic.ttf"
    assert charts.font_family() == "NanumGothic"
    drawn: list[charts.Chart] = []
    with duckdb.connect(str(built.paths.db_path), read_only=True) as con:
        sets = {
            "resume_agent": [RESUME_SET],
            "recruit_agent": [RECRUIT_SET],
            "summary": [r[0] for r in con.sql("select set_id from marts.summary_set_scores").fetchall()],
            "engagement": [r[0] for r in con.sql("select set_id from marts.engagement_run_scores").fetchall()],
        }
        for agent, set_ids in sets.items():
            for i, set_id in enumerate(set_ids):
                drawn += charts.render_charts(
                    con, registry.by_name()[agent], set_id, tmp_path / f"{agent}_{i}.md"
                ).values()
    assert len(drawn) == sum(map(len, EXPECTED_CHARTS.values()))
    for chart in drawn:
        assert chart.alt in chart.labels  # the title
        assert any(HANGUL.search(label) for label in chart.labels), chart.name
        assert charts.missing_glyphs("".join(chart.labels)) == "", chart.path
    resume_hist = next(c for c in drawn if c.path.name == "resume_agent_0.latency_hist.png")
    # the band labels, the axis labels and a panel title with its counts
    assert {"5점", "4점", "3점", "2점", "1점", "0점", "응답 시간(초)", "문항 수"} <= set(resume_hist.labels)
    assert "Track 1 (single) — 6문항, 지연 값 누락 1" in resume_hist.labels


def test_the_trend_chart_marks_the_series_band_and_baseline(built, tmp_path):
    spec = next(s for s in charts.chart_specs(registry.by_name()["engagement"]) if s.name == "trend")
    with duckdb.connect(str(built.paths.db_path), read_only=True) as con:
        first = charts.render_chart(con, "2026-11-01/engagement/run-worked", spec, tmp_path / "a.png")
        second = charts.render_chart(con, "2026-11-02/engagement/run-worked", spec, tmp_path / "b.png")
    assert first is None and not (tmp_path / "a.png").exists()  # a series of one: no trend
    assert {"전체 유사도", "2026-11-01", "2026-11-02", "7세트 이동평균", "기준선"} <= set(second.labels)
    assert charts.missing_glyphs("".join(second.labels)) == ""


def test_the_coverage_check_finds_what_the_font_lacks():
    # NanumGothic has no U+2212 MINUS SIGN (hence axes.unicode_minus off) and no emoji
    assert charts.missing_glyphs("점수 −1 😀 가") == "−😀"
    assert charts.drawable("p-😀-골프") == "p-?-골프"


def test_rendering_twice_gives_identical_bytes(rendered, built, tmp_path):
    report.render_all(built.paths.db_path, tmp_path)
    first = sorted(p.relative_to(rendered) for p in rendered.rglob("*.png"))
    second = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.png"))
    assert first == second and first
    for rel in first:
        assert (rendered / rel).read_bytes() == (tmp_path / rel).read_bytes(), rel


def test_latency_histogram_bins_follow_the_rubric(built):
    """basic fixture latencies (s): Track 1 4.0, 20.01, 15.0, 5.01, -, 3.0;
    Track 2 8.0, 10.0, -, 15.0; Track 3 61.0, 20.01, 20.0, 60.0.
    single edges 5/8/10/15/20 -> 1 s bins; multi edges 20..60 -> gcd 10, split
    in 4 for at least 20 bins up to 60 -> 2.5 s bins. Bins are right-closed
    like the bands: 20.0 s (5점) is in (17.5, 20], 20.01 s (4점) in (20, 22.5]."""
    with duckdb.connect(str(built.paths.db_path), read_only=True) as con:
        panels = charts.latency_panels(con, "marts.rpt_resume_latency_histogram", RESUME_SET)
    nonzero = {p.title: {i: n for i, n in enumerate(p.counts) if n} for p in panels}
    assert nonzero == {
        # 3.0 -> (2,3] bin 2; 4.0 -> bin 3; 5.01 -> (5,6] bin 5; 15.0 -> bin 14; 20.01 -> bin 20
        "Track 1 (single)": {2: 1, 3: 1, 5: 1, 14: 1, 20: 1},
        # 8.0 -> bin 7; 10.0 -> bin 9; 15.0 -> bin 14
        "Track 2 (single)": {7: 1, 9: 1, 14: 1},
        # 20.0/2.5 = 8 -> bin 7; 20.01 -> bin 8; 60.0/2.5 = 24 -> bin 23; 61.0 -> bin 24
        "Track 3 (multi)": {7: 1, 8: 1, 23: 1, 24: 1},
    }
    assert [p.n_missing for p in panels] == [1, 1, 0]
    single, _, multi = panels
    # 20 bins to the last edge, 10 more, then the overflow bin (> 30 s)
    assert (len(single.counts), single.edges[1], single.edges[-2]) == (31, 1.0, 30.0)
    assert (len(multi.counts), multi.edges[1], multi.edges[-2]) == (37, 2.5, 90.0)
    for panel in panels:  # every bin below the overflow bin lies inside one band
        for lower, upper in zip(panel.edges[:-2], panel.edges[1:-1]):
            assert any(b.lower <= lower and upper <= b.upper for b in panel.bands), (lower, upper)


def test_a_chart_with_nothing_to_draw_leaves_no_file_and_no_link(rendered, built):
    md = rendered / "engagement" / "2026-11-01" / "run-bad-expected.md"
    stale = charts.chart_path(md, "expected_actual")
    stale.write_bytes(PNG_SIGNATURE)  # as if an earlier build had drawn it
    report.render_all(built.paths.db_path, rendered, [NO_EXPECTED_RUN])
    assert not stale.exists()
    assert links(md) == []


WORKED_RUN = "2026-11-01/engagement/run-worked"


def expected_actual_spec() -> charts.ChartSpec:
    return next(s for s in charts.chart_specs(registry.by_name()["engagement"]) if s.name == "expected_actual")


def test_an_unchanged_chart_is_neither_drawn_nor_written_again(built, tmp_path, monkeypatch):
    spec, png = expected_actual_spec(), tmp_path / "worked.png"
    with duckdb.connect(str(built.paths.db_path), read_only=True) as con:
        first = charts.render_chart(con, WORKED_RUN, spec, png)
        before = png.stat()

        def no_drawing(*args, **kwargs):
            raise AssertionError("the unchanged chart was drawn again")

        monkeypatch.setattr(matplotlib.figure.Figure, "__init__", no_drawing)
        monkeypatch.setattr(FigureCanvasAgg, "draw", no_drawing)
        monkeypatch.setattr(matplotlib.image, "imsave", no_drawing)
        again = charts.render_chart(con, WORKED_RUN, spec, png)
    assert again == first
    assert (png.stat().st_mtime_ns, png.stat().st_ino) == (before.st_mtime_ns, before.st_ino)


def test_a_night_whose_charts_are_unchanged_imports_no_matplotlib(demo_warehouse, tmp_path):
    """The morning page of a night with nothing new, rendered in a fresh
    process over pages already written: its chart is unchanged, so neither
    matplotlib nor the font library is imported."""
    from agent_eval import morning

    reports = tmp_path / "reports"
    first = morning.render_morning(demo_warehouse.paths.db_path, reports)
    assert first is not None and charts.chart_path(first, charts.MORNING_OVERVIEW.name).is_file()
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from agent_eval import morning\n"
        "morning.render_morning(Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'matplotlib', 'fontTools', 'PIL'}))\n"
    )
    again = subprocess.run(
        [sys.executable, "-c", script, str(demo_warehouse.paths.db_path), str(reports)],
        capture_output=True,
        text=True,
        check=True,
    )
    # PIL reads the stored chart's key; drawing would need the other two
    assert again.stdout.strip() == "['PIL']", again.stdout


def test_a_chart_is_drawn_again_when_a_row_it_reads_changes(built, tmp_path):
    spec, png = expected_actual_spec(), tmp_path / "worked.png"
    db = tmp_path / "copy.duckdb"
    db.write_bytes(built.paths.db_path.read_bytes())
    with duckdb.connect(str(db), read_only=True) as con:
        charts.render_chart(con, WORKED_RUN, spec, png)
    first = png.read_bytes()
    with duckdb.connect(str(db)) as con:
        changed = con.execute(
            "update marts.engagement_run_metrics set actual_value = actual_value + 1 "
            "where set_id = ? and metric_kind = 'count'",
            [WORKED_RUN],
        ).fetchone()[0]
        assert changed > 0
    with duckdb.connect(str(db), read_only=True) as con:
        charts.render_chart(con, WORKED_RUN, spec, png)
    assert png.read_bytes() != first
    assert charts.stored_chart(png)["key"] != charts.stored_chart_from_bytes(first)["key"]


def test_a_png_that_does_not_carry_the_charts_key_is_replaced(built, tmp_path):
    spec = expected_actual_spec()
    with duckdb.connect(str(built.paths.db_path), read_only=True) as con:
        # another run's chart at this path, and a PNG with no key at all
        other = charts.render_chart(con, "2026-11-01/engagement/run-rates", spec, tmp_path / "a.png")
        plain = tmp_path / "b.png"
        Image.new("RGB", (8, 8)).save(plain)
        assert charts.stored_chart(plain) is None
        for png in (other.path, plain):
            foreign = png.read_bytes()
            chart = charts.render_chart(con, WORKED_RUN, spec, png)
            assert png.read_bytes() != foreign
            assert chart.labels == charts.render_chart(con, WORKED_RUN, spec, tmp_path / "c.png").labels


def test_a_chart_that_reads_after_it_began_drawing_is_an_error(built, tmp_path):
    def late_read(con, set_id, fig):
        charts.panels(fig, 1)
        charts.rows(con, "select 1")
        return True

    spec = charts.ChartSpec("late", "늦은 조회", late_read)
    with (
        duckdb.connect(str(built.paths.db_path), read_only=True) as con,
        pytest.raises(RuntimeError, match="after it began drawing"),
    ):
        charts.render_chart(con, WORKED_RUN, spec, tmp_path / "late.png")


def test_a_charts_key_does_not_depend_on_the_order_rows_come_back_in():
    """A query without ORDER BY may return its rows in any order (DuckDB
    aggregates in parallel): the same rows must give the same key."""
    digests = []
    for values in ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (1, "a"), (2, "b")]):
        with duckdb.connect() as con:
            con.execute("create table t (n integer, s varchar)")
            con.executemany("insert into t values (?, ?)", values)
            drawing = charts._Drawing("prefix", None, charts.hashlib.sha256())
            token = charts._DRAWING.set(drawing)
            try:
                fetched = charts.rows(con, "select n, s from t")
            finally:
                charts._DRAWING.reset(token)
        assert [r["n"] for r in fetched] == [v[0] for v in values]  # the caller gets them as they came
        digests.append(drawing.reads.hexdigest())
    assert digests[0] == digests[1]
