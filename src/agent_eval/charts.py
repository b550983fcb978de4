"""PNG charts beside the markdown reports, drawn from the marts.

Each report links a few charts; every chart is one ``ChartSpec`` in ``CHARTS``
(per agent): a file name, the Korean alt text (also the chart's title) and a
``plot`` function that queries the marts for one set and draws on a figure, or
returns False when there is nothing to draw (the chart and its link are then
left out). Counts and bins are computed in DuckDB (``GROUP BY`` over the item
marts), so a set of a million items sends a few dozen rows to Python; no score
is recomputed here.

Rendering is headless and deterministic: a ``Figure`` on matplotlib's Agg
canvas (no pyplot, no global backend), a fixed size per panel count, a fixed
dpi, and no ``Software`` metadata in the PNG, so the same data gives the same
bytes. Text is set in NanumGothic, shipped by the PyPI package
koreanize-matplotlib and registered by file path, so Hangul renders on any
machine that installed the project.

A chart is drawn only when what it shows changed: its key (every row it
read, the chart, this module's code) is stored in the PNG, and an unchanged
key leaves the file alone (``render_chart``).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import importlib.metadata
import inspect
import io
import itertools
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import duckdb

from agent_eval import db
from agent_eval.fonts import font_path

# matplotlib (and the font and image libraries) are imported where a chart
# is drawn: a night whose charts are all unchanged never imports them.
if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# ---------------------------------------------------------------- font


def font_family() -> str:
    """Register ``font_path()`` with matplotlib (once) and return its family name."""
    from matplotlib import font_manager

    path = font_path()
    if not any(Path(entry.fname) == path for entry in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(str(path))
    return font_manager.FontProperties(fname=str(path)).get_name()


@functools.cache
def _codepoints(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    with TTFont(str(path), lazy=True) as font:
        return frozenset(font.getBestCmap())


def missing_glyphs(text: str, path: Path | None = None) -> str:
    """The characters of ``text`` (whitespace aside) that the font at ``path``
    (default: the chart font) has no glyph for, each once, in order."""
    covered = _codepoints(path or font_path())
    missing = (ch for ch in text if not ch.isspace() and ord(ch) not in covered)
    return "".join(dict.fromkeys(missing))


def drawable(text: str) -> str:
    """``text`` with every character the chart font lacks replaced by '?':
    for labels that come from data (persona names), never a tofu box."""
    missing = set(missing_glyphs(text))
    return "".join("?" if ch in missing else ch for ch in text)


# ---------------------------------------------------------------- drawing state


@dataclass
class _Drawing:
    """The chart being rendered: what it has read, and its key once it
    starts drawing."""

    prefix: str  # code version, chart and set
    stored: dict[str, Any] | None  # what its PNG already holds
    reads: Any  # a hashlib hash of every row read
    key: str | None = None


class _Unchanged(Exception):
    """The chart's PNG already holds the chart of this key."""


_DRAWING: contextvars.ContextVar[_Drawing | None] = contextvars.ContextVar("agent_eval_drawing", default=None)


# ---------------------------------------------------------------- figures

DPI = 100
FIGURE_WIDTH_IN = 8.0
PANEL_HEIGHT_IN = 2.6
TITLE_HEIGHT_IN = 0.5
STYLE = {
    "axes.unicode_minus": False,  # NanumGothic has no U+2212 minus sign
    "text.parse_math": False,  # a '$' in a label is text, not mathtext
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
# one colour per rubric score, green (5) to red (0)
SCORE_COLORS = {5: "#1a9850", 4: "#91cf60", 3: "#d9ef8b", 2: "#fee08b", 1: "#fc8d59", 0: "#d73027"}
SERIES_COLORS = ["#4575b4", "#f46d43", "#74add1", "#fdae61", "#313695", "#a50026"]
BAND_ALPHA = 0.2
BAR_HEIGHT = 0.5
BAND_LABEL_ROOM = 0.15  # head room above the bars for the band labels


def panels(fig: Figure, n: int, ncols: int = 1) -> list[Axes]:
    """Size ``fig`` for ``n`` >= 1 panels (fixed inches per row) and return their axes.

    Every chart calls this once, after its queries and before it draws:
    when its PNG already holds the chart of the same data, drawing stops
    here (``render_chart``)."""
    drawing = _DRAWING.get()
    if drawing is not None:
        drawing.key = hashlib.sha256(f"{drawing.prefix}\x1f{drawing.reads.hexdigest()}".encode()).hexdigest()
        if drawing.stored is not None and drawing.stored["key"] == drawing.key:
            raise _Unchanged
    nrows = -(-n // ncols)
    fig.set_size_inches(FIGURE_WIDTH_IN, TITLE_HEIGHT_IN + PANEL_HEIGHT_IN * nrows)
    axes = fig.subplots(nrows, ncols, squeeze=False).flatten()
    for extra in axes[n:]:
        extra.remove()
    return list(axes[:n])


def _integer_ticks() -> Any:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def bar_chart(
    ax: Axes,
    categories: Sequence[str],
    series: dict[str, Sequence[float]],
    colors: Sequence[str] = SERIES_COLORS,
    counts: bool = True,
) -> None:
    """Grouped vertical bars: one group per category, one bar per series;
    a legend when there is more than one series. ``counts``: integer y ticks."""
    width = 0.8 / len(series)
    for i, (name, values) in enumerate(series.items()):
        offsets = [c + (i - (len(series) - 1) / 2) * width for c in range(len(categories))]
        ax.bar(offsets, values, width, label=name, color=colors[i % len(colors)])
    ax.set_xticks(range(len(categories)), categories)
    if counts:
        ax.yaxis.set_major_locator(_integer_ticks())
    if len(series) > 1:
        ax.legend(fontsize="small", frameon=False)


def stacked_barh(ax: Axes, categories: Sequence[str], series: dict[str, Sequence[int]], colors: Sequence[str]) -> None:
    """Horizontal bars, one per category, stacked by series and labelled
    with their counts, the legend above the axes."""
    left = [0] * len(categories)
    for (name, values), color in zip(series.items(), colors):
        bars = ax.barh(categories, values, BAR_HEIGHT, left=left, label=name, color=color)
        ax.bar_label(bars, [str(v) if v else "" for v in values], label_type="center", fontsize="small")
        left = [a + b for a, b in zip(left, values)]
    ax.invert_yaxis()
    ax.xaxis.set_major_locator(_integer_ticks())
    ax.legend(fontsize="small", frameon=False, ncols=len(series), loc="lower left", bbox_to_anchor=(0, 1))


@dataclass(frozen=True)
class Band:
    """One score band of a rubric: a latency in (lower, upper] seconds gives ``score``."""

    lower: float
    upper: float
    score: int


def draw_bands(ax: Axes, bands: Iterable[Band], x_max: float) -> None:
    """Shade each band as a vertical span labelled with its score ('5점')."""
    for band in bands:
        upper = min(band.upper, x_max)
        if band.lower >= upper:
            continue
        ax.axvspan(band.lower, upper, color=SCORE_COLORS.get(band.score, "#cccccc"), alpha=BAND_ALPHA, linewidth=0)
        ax.text(
            (band.lower + upper) / 2,
            0.98,
            f"{band.score}점",
            ha="center",
            va="top",
            fontsize="small",
            transform=ax.get_xaxis_transform(),
        )


def histogram(
    ax: Axes, edges: Sequence[float], series: dict[str, Sequence[int]], colors: Sequence[str] = SERIES_COLORS
) -> None:
    """Bars over consecutive bins (``edges`` has one more entry than each
    series), stacked by series; a legend when there is more than one."""
    widths = [b - a for a, b in itertools.pairwise(edges)]
    bottom = [0] * len(widths)
    for i, (name, counts) in enumerate(series.items()):
        ax.bar(
            edges[:-1],
            counts,
            widths,
            bottom=bottom,
            align="edge",
            label=name,
            color=colors[i % len(colors)],
            edgecolor="white",
            linewidth=0.5,
        )
        bottom = [a + b for a, b in zip(bottom, counts)]
    ax.yaxis.set_major_locator(_integer_ticks())
    if len(series) > 1:
        ax.legend(fontsize="small", frameon=False)


def histogram_with_bands(
    ax: Axes, edges: Sequence[float], counts: Sequence[int], bands: Iterable[Band], overflow_label: str | None = None
) -> None:
    """A histogram with the rubric's score bands shaded behind it. With
    ``overflow_label`` the last bin holds everything beyond its left edge and
    is hatched and annotated."""
    draw_bands(ax, bands, edges[-1])
    histogram(ax, edges, {"": counts})
    ax.set_xlim(edges[0], edges[-1])
    ax.margins(y=BAND_LABEL_ROOM)
    if overflow_label and counts[-1]:
        ax.containers[-1][-1].set_hatch("//")
        ax.annotate(
            overflow_label,
            (edges[-2], counts[-1]),
            xytext=(0, 3),
            textcoords="offset points",
            ha="right",
            fontsize="small",
        )


def score_ticks(ax: Axes, lo: float, hi: float, step: float) -> None:
    """x ticks every ``step`` over the score range [lo, hi]."""
    n = round((hi - lo) / step)
    ax.set_xticks([round(lo + i * step, 6) for i in range(n + 1)])
    ax.set_xlim(lo, hi)


# ---------------------------------------------------------------- queries


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """The rows of a query, as dicts. Every chart reads the warehouse through
    here, and only before it starts drawing (``panels``): what a chart is
    drawn from is then known before any drawing (``render_chart``).

    The rows go into the chart's key as a multiset (a query without ORDER BY
    may return them in any order): a query whose ORDER BY decides what is
    drawn must select the columns it orders by."""
    drawing = _DRAWING.get()
    if drawing is not None and drawing.key is not None:
        raise RuntimeError("a chart read the warehouse after it began drawing: query before panels()")
    names, data = db.fetch(con, sql, params)
    if drawing is not None:
        drawing.reads.update(repr((sql, list(params), names, sorted(map(repr, data)))).encode())
    return [dict(zip(names, row)) for row in data]


def score_histogram(
    con: duckdb.DuckDBPyConnection, table: str, set_id: str, scale: str, series: Sequence[str]
) -> tuple[dict[str, list[int]], list[float]]:
    """One set's score histogram as a mart holds it (``table``: a
    rpt_<agent>_score_histogram, one row per series and non-empty bin): the
    counts of each name in ``series``, bin by bin, and the bins' edges
    (rpt_score_histogram_bins, ``scale``)."""
    bins = rows(
        con,
        "select bin, bin_lower, bin_upper from marts.rpt_score_histogram_bins where scale = ? order by bin",
        [scale],
    )
    edges = [b["bin_lower"] for b in bins] + [bins[-1]["bin_upper"]]
    counts = {name: [0] * len(bins) for name in series}
    for row in rows(con, f"select series, bin, n_items from {table} where set_id = ?", [set_id]):
        if row["series"] in counts:
            counts[row["series"]][row["bin"]] = row["n_items"]
    return counts, edges


@dataclass(frozen=True)
class LatencyPanel:
    """One latency histogram: a track or class of one set, binned in DuckDB."""

    title: str
    edges: list[float]  # the last bin is the overflow bin: everything above edges[-2]
    counts: list[int]
    bands: list[Band]
    n_missing: int


def rubric_bands(con: duckdb.DuckDBPyConnection) -> dict[str, list[Band]]:
    """The score bands of each latency rubric, as the item models score
    with them (mart rpt_latency_bands)."""
    bands: dict[str, list[Band]] = {}
    for row in rows(
        con,
        "select latency_rubric, band_order, axis_lower_sec, upper_bound_sec, latency_score "
        "from marts.rpt_latency_bands order by latency_rubric, band_order",
    ):
        bands.setdefault(row["latency_rubric"], []).append(
            Band(row["axis_lower_sec"], row["upper_bound_sec"], row["latency_score"])
        )
    return bands


def latency_panels(con: duckdb.DuckDBPyConnection, table: str, set_id: str) -> list[LatencyPanel]:
    """One set's latency histograms as a mart holds them (``table``: a
    rpt_<agent>_latency_histogram, one row per panel and non-empty bin, bin
    -1 for the items without a latency), in the rubrics' bins
    (rpt_latency_histogram_bins) with their score bands."""
    bands = rubric_bands(con)
    edges: dict[str, list[float]] = {}
    for row in rows(
        con,
        "select latency_rubric, bin, bin_lower_sec, bin_upper_sec from marts.rpt_latency_histogram_bins "
        "order by latency_rubric, bin",
    ):
        rubric_edges = edges.setdefault(row["latency_rubric"], [row["bin_lower_sec"]])
        rubric_edges.append(row["bin_upper_sec"])
    panels_by_order: dict[Any, LatencyPanel] = {}
    for row in rows(
        con,
        f"select panel_order, panel_title, latency_rubric, bin, n_items from {table} "
        "where set_id = ? order by panel_order, bin",
        [set_id],
    ):
        rubric = row["latency_rubric"]
        panel = panels_by_order.setdefault(
            row["panel_order"],
            LatencyPanel(row["panel_title"], edges[rubric], [0] * (len(edges[rubric]) - 1), bands[rubric], 0),
        )
        if row["bin"] == -1:
            panels_by_order[row["panel_order"]] = replace(panel, n_missing=row["n_items"])
        else:
            panel.counts[row["bin"]] = row["n_items"]
    return list(panels_by_order.values())


def plot_latency_panels(fig: Figure, latency: list[LatencyPanel]) -> bool:
    """One histogram with rubric bands per panel that has any latency."""
    drawn = [p for p in latency if sum(p.counts)]
    if not drawn:
        return False
    for ax, panel in zip(panels(fig, len(drawn)), drawn):
        n_items = sum(panel.counts) + panel.n_missing
        missing = f", 지연 값 누락 {panel.n_missing}" if panel.n_missing else ""
        ax.set_title(f"{panel.title} — {n_items}문항{missing}", loc="left")
        overflow = f"{panel.edges[-2]:g}초 초과"
        histogram_with_bands(ax, panel.edges, panel.counts, panel.bands, overflow)
        ax.set_xlabel("응답 시간(초)")
        ax.set_ylabel("문항 수")
    return True


def plot_score_panels(
    fig: Figure, bins: dict[str, dict[str, list[int]]], edges: Sequence[float], ncols: int = 1, tick_step: float = 1.0
) -> bool:
    """One score histogram per panel title in ``bins`` (series -> counts
    over the bins of ``edges``), leaving out empty series and panels; each
    title gets its count."""
    drawn = {title: {name: counts for name, counts in series.items() if sum(counts)} for title, series in bins.items()}
    drawn = {title: series for title, series in drawn.items() if series}
    if not drawn:
        return False
    for ax, (title, series) in zip(panels(fig, len(drawn), min(ncols, len(drawn))), drawn.items()):
        histogram(ax, edges, series)
        score_ticks(ax, edges[0], edges[-1], tick_step)
        ax.set_title(f"{title} — {sum(map(sum, series.values()))}건", loc="left")
        ax.set_xlabel("점수")
        ax.set_ylabel("건수")
    return True


# ---------------------------------------------------------------- resume agent


# ---------------------------------------------------------------- recruit agent


# ---------------------------------------------------------------- summary


# ---------------------------------------------------------------- engagement


def as_float(value: float | None) -> float:
    """A bar height: a missing value draws no bar."""
    return float("nan") if value is None else value


# ---------------------------------------------------------------- history

TREND_SETS = 14  # the last N sets of the series, this one included


def line_with_band(
    ax: Axes,
    labels: Sequence[str],
    values: Sequence[float | None],
    lows: Sequence[float | None],
    highs: Sequence[float | None],
    color: str = SERIES_COLORS[0],
) -> None:
    """A line over ``labels`` with its confidence band shaded where known."""
    xs = range(len(labels))
    ax.plot(xs, [as_float(v) for v in values], marker="o", color=color, label="값")
    if any(lo is not None for lo in lows):
        ax.fill_between(
            xs,
            [as_float(v) for v in lows],
            [as_float(v) for v in highs],
            color=color,
            alpha=BAND_ALPHA,
            linewidth=0,
            label="95% 구간",
        )
    ax.set_xticks(xs, labels, rotation=30, ha="right", fontsize="small")


def series_trend(metrics: Sequence[str]) -> Plot:
    """The trend chart of an agent whose trend panels are ``metrics`` (its
    package's TREND_METRICS, which its charts module passes)."""

    def plot(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
        return series_trend_panels(con, set_id, fig, metrics)

    return plot


def series_trend_panels(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure, metrics: Sequence[str]) -> bool:
    """The set's series up to this set (last TREND_SETS): value, 95% band,
    rolling 7-set mean and the baseline marked, one panel per key metric
    (``metrics``, those the series has at least two points of). Nothing to
    draw for the first set of a series."""
    points = rows(
        con,
        """
        with this_set as (
            select distinct agent, series_id, set_seq, baseline_set_id
            from marts.history_metric_trends where set_id = ?
        )
        select t.set_seq, this_set.agent, this_set.baseline_set_id, t.metric, t.metric_label, t.set_id,
               t.drop_date, t.metric_value, t.ci_low, t.ci_high, t.rolling_7_mean
        from marts.history_metric_trends as t
        join this_set on t.series_id = this_set.series_id
        where t.set_seq <= this_set.set_seq and t.set_seq > this_set.set_seq - ?
        order by t.set_seq
        """,
        [set_id, TREND_SETS],
    )
    if not points:
        return False
    baseline = points[0]["baseline_set_id"]
    by_metric = {m: [p for p in points if p["metric"] == m] for m in metrics}
    by_metric = {m: ps for m, ps in by_metric.items() if len(ps) >= 2}
    if not by_metric:
        return False
    axes = panels(fig, len(by_metric), ncols=2 if len(by_metric) > 1 else 1)
    for ax, ps in zip(axes, by_metric.values()):
        labels = [str(p["drop_date"]) for p in ps]
        line_with_band(
            ax, labels, [p["metric_value"] for p in ps], [p["ci_low"] for p in ps], [p["ci_high"] for p in ps]
        )
        ax.plot(
            range(len(ps)),
            [as_float(p["rolling_7_mean"]) for p in ps],
            linestyle="--",
            color=SERIES_COLORS[1],
            label="7세트 이동평균",
        )
        for i, p in enumerate(ps):
            if p["set_id"] == baseline:
                ax.axvline(i, color="#969696", linestyle=":", label="기준선")
        ax.set_title(ps[0]["metric_label"], loc="left")
        ax.legend(fontsize="small", frameon=False)
    return True


# each verdict's colour (the counts are columns n_metrics_<verdict>)
VERDICT_COLORS = {"regressed": "#d73027", "within_noise": "#969696", "improved": "#1a9850"}


def morning_overview(con: duckdb.DuckDBPyConnection, drop_date: str, fig: Figure) -> bool:
    """Per set of the drop: how many of its metrics regressed, stayed within
    noise or improved against the baseline (labelled as seed verdict_labels
    says)."""
    verdicts = rows(con, "select verdict, label_ko from rubric.verdict_labels order by verdict_order")
    counts = rows(
        con,
        "select agent || ' · ' || series_id as label, "
        + ", ".join(f"n_metrics_{v} as {v}" for v in VERDICT_COLORS)
        + " from marts.rpt_history_day_series_counts where drop_date = cast(? as date) order by label",
        [drop_date],
    )
    if not counts:
        return False
    ax = panels(fig, 1)[0]
    stacked_barh(
        ax,
        [drawable(c["label"]) for c in counts],
        {v["label_ko"]: [c[v["verdict"]] for c in counts] for v in verdicts},
        [VERDICT_COLORS[v["verdict"]] for v in verdicts],
    )
    ax.set_xlabel("지표 수")
    return True


# ---------------------------------------------------------------- registry

Plot = Callable[[duckdb.DuckDBPyConnection, str, "Figure"], bool]


@dataclass(frozen=True)
class ChartSpec:
    """One chart of a report: written as ``<report stem>.<name>.png``."""

    name: str
    alt: str  # the markdown alt text, also the chart's title
    plot: Plot  # draws the set's chart; False when there is nothing to draw


MORNING_OVERVIEW = ChartSpec("overview", "세트별 지표 판정 (기준선 대비: 회귀 / 잡음 이내 / 개선)", morning_overview)


# ---------------------------------------------------------------- rendering


@dataclass(frozen=True)
class Chart:
    """A chart written beside a report."""

    name: str
    alt: str
    path: Path
    labels: tuple[str, ...]  # every text drawn: titles, axis labels, ticks, legends, notes

    @property
    def link(self) -> str:
        """The markdown image link, relative to the report."""
        return f"![{self.alt}]({quote(self.path.name)})"


def chart_path(report: Path, name: str) -> Path:
    """``reports/x/2026-11-20/nightly.md`` -> ``.../nightly.<name>.png``."""
    return report.with_name(f"{report.stem}.{name}.png")


def drawn_texts(fig: Figure) -> tuple[str, ...]:
    """Every visible, non-empty text of a drawn figure, each once, in order."""
    from matplotlib.text import Text

    texts = (t.get_text() for t in fig.findobj(Text) if t.get_visible())
    return tuple(dict.fromkeys(t for t in texts if t.strip()))


# The PNG text chunk that carries the chart's key and drawn texts.
PNG_KEY = "agent-eval chart"


@functools.cache
def code_version(plot_module: str | None = None) -> str:
    """What else decides a chart's pixels: this module's source (style,
    sizes, shared plots), the source of the module defining the plot (an
    agent's charts), matplotlib's version and the font file."""
    font = font_path()
    plot_source = inspect.getsourcefile(sys.modules[plot_module]) if plot_module else None
    parts = [
        Path(__file__).read_bytes(),
        Path(plot_source).read_bytes() if plot_source else b"",
        importlib.metadata.version("matplotlib").encode(),
        str(font).encode(),
        str(font.stat().st_size).encode(),
    ]
    return hashlib.sha256(b"\x1f".join(parts)).hexdigest()


def stored_chart(path: Path) -> dict[str, Any] | None:
    """The key and drawn texts a PNG written by ``render_chart`` carries, or
    None (no file, another file, unreadable)."""
    try:
        return stored_chart_from_bytes(path.read_bytes())
    except OSError:
        return None


def stored_chart_from_bytes(data: bytes) -> dict[str, Any] | None:
    """``stored_chart`` of a PNG's bytes."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            text = getattr(image, "text", {}).get(PNG_KEY)
        stored = json.loads(text) if text else None
    except (OSError, ValueError):
        return None
    return stored if isinstance(stored, dict) and {"key", "labels"} <= stored.keys() else None


def render_chart(con: duckdb.DuckDBPyConnection, set_id: str, spec: ChartSpec, path: Path) -> Chart | None:
    """Draw one chart of one set into ``path``; None (and no file) when empty.

    Cost follows the data: the chart's key is a hash of every row it read
    (``rows``), the set, the spec and ``code_version()``, known when it
    starts drawing (``panels``). When ``path`` already holds the PNG of
    that key, nothing is drawn or written (drawing and rasterising cost
    about 0.3 s a chart, the queries a few milliseconds). The key and the
    drawn texts are stored in the PNG itself, so the file cannot disagree
    with its record.
    """
    stored = stored_chart(path)
    prefix = "\x1f".join([code_version(spec.plot.__module__), spec.name, spec.alt, set_id])
    drawing = _Drawing(prefix, stored, hashlib.sha256())
    with contextlib.ExitStack() as stack:
        fig = _LazyFigure(stack)
        token = _DRAWING.set(drawing)
        try:
            drawn = spec.plot(con, set_id, fig)  # type: ignore[arg-type]
        except _Unchanged:
            return Chart(spec.name, spec.alt, path, tuple(stored["labels"]))
        finally:
            _DRAWING.reset(token)
        if not drawn:
            path.unlink(missing_ok=True)
            return None
        if drawing.key is None or fig.figure is None:
            raise RuntimeError(f"chart {spec.name} drew without panels()")
        import matplotlib.image

        figure, canvas = fig.figure, fig.canvas
        figure.suptitle(spec.alt, x=0.01, ha="left", fontsize="large")
        # One draw lays the figure out and rasterises it (savefig would draw
        # twice: once for the layout, once for the pixels); the tick labels
        # exist from here, so the drawn texts go into the PNG with the key.
        canvas.draw()
        labels = drawn_texts(figure)
        record = json.dumps({"key": drawing.key, "labels": labels}, ensure_ascii=False)
        matplotlib.image.imsave(
            path,
            canvas.buffer_rgba(),
            format="png",
            origin="upper",
            dpi=DPI,
            metadata={"Software": None, PNG_KEY: record},
        )
        return Chart(spec.name, spec.alt, path, labels)


class _LazyFigure:
    """The figure a chart draws on, made (with the chart style and its Agg
    canvas) the first time the chart uses it: in ``panels``, once the key
    says the chart changed. Until then nothing of matplotlib is imported."""

    def __init__(self, stack: contextlib.ExitStack) -> None:
        self._stack = stack
        self.figure: Any = None
        self.canvas: Any = None

    def _made(self) -> Any:
        if self.figure is None:
            import matplotlib
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure

            self._stack.enter_context(matplotlib.rc_context(STYLE | {"font.family": font_family()}))
            self.figure = Figure(dpi=DPI, layout="constrained")
            self.canvas = FigureCanvasAgg(self.figure)
        return self.figure

    def __getattr__(self, name: str) -> Any:
        return getattr(self._made(), name)


def chart_specs(agent: Any) -> list[ChartSpec]:
    """The charts ``agent``'s reports link (its charts module's CHARTS)."""
    part = agent.part("charts")
    return list(part.CHARTS) if part is not None else []


def render_charts(con: duckdb.DuckDBPyConnection, agent: Any, set_id: str, report: Path) -> dict[str, Chart]:
    """Every chart of ``agent``'s report of ``set_id`` beside ``report``, by
    name; a chart with nothing to draw is left out and its old file removed."""
    charts = {}
    for spec in chart_specs(agent):
        chart = render_chart(con, set_id, spec, chart_path(report, spec.name))
        if chart is not None:
            charts[spec.name] = chart
    return charts
