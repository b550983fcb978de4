"""The charts of the resume_agent report (agent_eval.charts draws them; each
reads one public mart)."""

from __future__ import annotations

import duckdb
from matplotlib.figure import Figure

from agent_eval.agents.resume_agent import TREND_METRICS
from agent_eval.charts import (
    ChartSpec,
    bar_chart,
    latency_panels,
    panels,
    plot_latency_panels,
    plot_score_panels,
    rows,
    score_histogram,
    series_trend,
    stacked_barh,
)


def resume_latency_scores(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Items per latency score (5점..0점) for each rubric, one bar per round."""
    result = rows(
        con,
        """
        with
        rubrics as (
            select latency_rubric, min(track) as first_track,
                   string_agg(track_label, ', ' order by track) as tracks
            from rubric.resume_track_rubrics
            group by latency_rubric
        )
        select rubrics.tracks || ' (' || dist.latency_rubric || ')' as title,
               rubrics.first_track, dist.round_order,
               dist.round, dist.latency_score, dist.n_items
        from marts.resume_latency_distribution as dist
        inner join rubrics on dist.latency_rubric = rubrics.latency_rubric
        where dist.set_id = ? and dist.scope = 'round'
        order by rubrics.first_track, dist.round_order, dist.latency_score desc
        """,
        [set_id],
    )
    scores = sorted({r["latency_score"] for r in result}, reverse=True)
    by_rubric: dict[str, dict[str, list[int]]] = {}
    for r in result:
        series = by_rubric.setdefault(r["title"], {}).setdefault(f"{r['round']}회차", [0] * len(scores))
        series[scores.index(r["latency_score"])] = r["n_items"]
    drawn = {t: s for t, s in by_rubric.items() if any(sum(v) for v in s.values())}
    if not drawn:
        return False
    for ax, (title, series) in zip(panels(fig, len(drawn)), drawn.items()):
        bar_chart(ax, [f"{s}점" for s in scores], series)
        ax.set_title(title, loc="left")
        ax.set_ylabel("문항 수")
    return True


# (panel_order, panel_title, latency_rubric, latency_sec) per item of one set


def resume_latency_hist(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Latency histogram per track, with its rubric's score bands."""
    return plot_latency_panels(fig, latency_panels(con, "marts.rpt_resume_latency_histogram", set_id))


CONSISTENCY_OUTCOMES = {"n_both_pass": "둘 다 pass", "n_both_fail": "둘 다 fail", "n_mismatch": "차이"}


CONSISTENCY_COLORS = ["#1a9850", "#969696", "#f46d43"]


def resume_consistency(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Consistency outcomes (both pass / both fail / mismatch) per round pair."""
    pairs = rows(
        con,
        "select round_a_order, round_b_order, round_a, round_b, n_both_pass, n_both_fail, n_mismatch "
        "from marts.resume_consistency_round_pairs where set_id = ? and n_pairs > 0 "
        "order by round_a_order, round_b_order",
        [set_id],
    )
    if not pairs:
        return False
    (ax,) = panels(fig, 1)
    categories = [f"{p['round_a']} ↔ {p['round_b']}" for p in pairs]
    series = {label: [p[column] for p in pairs] for column, label in CONSISTENCY_OUTCOMES.items()}
    stacked_barh(ax, categories, series, CONSISTENCY_COLORS)
    ax.set_xlabel("비교 쌍 수")
    return True


RESUME_ITEM_SCORES = {"intent_score": "의도 충족", "accuracy_score": "정확성", "stability_score": "안정성"}


def resume_item_scores(con: duckdb.DuckDBPyConnection, set_id: str, fig: Figure) -> bool:
    """Item score distributions of intent, accuracy and stability (0-5)."""
    bins, edges = score_histogram(con, "marts.rpt_resume_score_histogram", set_id, "item", list(RESUME_ITEM_SCORES))
    by_title = {RESUME_ITEM_SCORES[column]: {"": counts} for column, counts in bins.items()}
    return plot_score_panels(fig, by_title, edges, ncols=3)


# the charts each report links, in order
CHARTS = [
    ChartSpec("item_scores", "문항 점수 분포 (의도 충족·정확성·안정성)", resume_item_scores),
    ChartSpec("consistency", "회차쌍별 일관성 결과", resume_consistency),
    ChartSpec("latency_hist", "Track별 응답시간 분포 (루브릭 구간 표시)", resume_latency_hist),
    ChartSpec("latency_scores", "루브릭별 응답 속도 점수 분포", resume_latency_scores),
    ChartSpec("trend", "시리즈 추이 (95% 구간, 7세트 이동평균, 기준선)", series_trend(TREND_METRICS)),
]
