"""Deterministic engagement sample drops (SPEC §5): agent action logs of
simulated social-feed runs and their expected like/comment data.

Two nights:

- ``2026-11-01/engagement/sim-20261101-01``: three agents; personas from
  ``personaId``, from ``persona`` and from the agent folder; non-``act``
  lines (observe / scroll) and non-``ok`` acts (error / skipped); expected
  counts with ``perPersona`` naming a persona the run never used.
- ``2026-11-02/engagement/sim-20261102-01``: expected rates with a
  ``weights`` override; one malformed line and one act whose ``liked`` is
  not a boolean (rejected rows).
- ``2026-11-02/engagement/sim-20261102-02``: an expected.json without any
  metric (rejected file: the run shows ``no_expected``).
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

POSTS = [
    ("post-1001", "가을 신상 트렌치코트 코디 추천해요"),
    ("post-1002", "성수동 새로 생긴 베이커리 솔직 후기"),
    ("post-1003", "출근길 5분 메이크업 루틴 공유합니다"),
    ("post-1004", "주말 캠핑 장비 리스트 정리"),
    ("post-1005", "신입 개발자 첫 월급으로 산 키보드"),
    ("post-1006", "제주도 2박 3일 여행 코스"),
    ("post-1007", "홈카페 라떼아트 연습 중"),
    ("post-1008", "러닝 크루 10km 완주 인증"),
]
COMMENTS = [
    "너무 예뻐요! 어디서 구매하셨어요?",
    "저도 가보고 싶네요 ㅎㅎ",
    "정보 감사합니다 저장해둘게요",
    "와 대박… 꿀팁이네요",
    "다음 후기도 기대할게요!",
    "이거 진짜 공감돼요",
]
ERRORS = ["timeout: 피드 응답 지연 (30초 초과)", "rate_limited: 잠시 후 다시 시도"]


def _line(
    rng: random.Random,
    ts: datetime,
    run_id: str,
    agent_id: str,
    persona: tuple[str, str] | None,
    like_p: float,
    comment_p: float,
) -> dict[str, Any]:
    """One action line: mostly act/ok, some observe/scroll and failed acts."""
    post_id, title = rng.choice(POSTS)
    line: dict[str, Any] = {"ts": ts.strftime("%Y-%m-%dT%H:%M:%S+09:00"), "runId": run_id, "agentId": agent_id}
    if persona is not None:
        line[persona[0]] = persona[1]
    line["postId"] = post_id
    line["postTitle"] = title
    roll = rng.random()
    if roll < 0.12:
        line["action"] = {"type": rng.choice(["observe", "scroll"]), "status": "ok"}
        line["result"] = {"dwellSec": round(rng.uniform(1, 12), 1)}
        return line
    if roll < 0.20:
        status = rng.choice(["error", "skipped"])
        line["action"] = {"type": "act", "status": status, "reason": rng.choice(ERRORS)}
        # a failed act may still carry flags: they must not count
        line["result"] = {"liked": True, "commented": False}
        return line
    liked = rng.random() < like_p
    commented = rng.random() < comment_p
    line["action"] = {"type": "act", "status": "ok"}
    line["result"] = {"liked": liked, "commented": commented}
    if commented:
        line["result"]["comment"] = rng.choice(COMMENTS)
    return line


def _write_jsonl(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _write_json(path: Path, document: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def _agent_log(
    rng: random.Random,
    start: datetime,
    run_id: str,
    agent_id: str,
    personas: list[tuple[str, str] | None],
    n_lines: int,
    like_p: float,
    comment_p: float,
) -> list[str]:
    out = []
    for i in range(n_lines):
        persona = personas[i % len(personas)]
        ts = start + timedelta(seconds=17 * i)
        out.append(json.dumps(_line(rng, ts, run_id, agent_id, persona, like_p, comment_p), ensure_ascii=False))
    return out


def write_samples(drops_dir: Path) -> list[Path]:
    rng = random.Random(503)
    written: list[Path] = []

    run = "sim-20261101-01"
    base = drops_dir / "2026-11-01" / "engagement" / run
    start = datetime(2026, 11, 1, 21, 0, 0)
    written.append(
        _write_jsonl(
            base / "agent-01" / "actions.jsonl",
            _agent_log(
                rng,
                start,
                run,
                "agent-01",
                [("personaId", "p-20s-beauty"), ("personaId", "p-30s-office")],
                36,
                0.75,
                0.3,
            ),
        )
    )
    written.append(
        _write_jsonl(
            base / "agent-02" / "actions.jsonl",
            _agent_log(rng, start, run, "agent-02", [("persona", "p-40s-camping")], 24, 0.5, 0.2),
        )
    )
    written.append(
        _write_jsonl(
            base / "agent-03" / "actions.jsonl", _agent_log(rng, start, run, "agent-03", [None], 20, 0.6, 0.15)
        )
    )
    written.append(
        _write_json(
            base / "expected.json",
            {
                "description": "2026-10 뷰티/라이프스타일 캠페인 크롤링 결과 (게시물 80건 노출 기준)",
                "expected": {"likeCount": 45, "commentCount": 14},
                "perPersona": {
                    "p-20s-beauty": {"likeCount": 15, "commentCount": 6},
                    "p-40s-camping": {"likeCount": 10},
                    "p-50s-golf": {"likeCount": 4, "commentCount": 1},
                },
            },
        )
    )

    run = "sim-20261102-01"
    base = drops_dir / "2026-11-02" / "engagement" / run
    start = datetime(2026, 11, 2, 21, 0, 0)
    log = _agent_log(
        rng, start, run, "agent-01", [("personaId", "p-20s-beauty"), ("personaId", "p-30s-office")], 30, 0.7, 0.25
    )
    log.insert(
        11,
        '{"ts": "2026-11-02T21:03:07+09:00", "runId": "sim-20261102-01", "action": {"type": "act", "status": "ok"}, "result": {"liked": tr',
    )
    log.append(
        json.dumps(
            {
                "ts": "2026-11-02T21:09:00+09:00",
                "runId": run,
                "agentId": "agent-01",
                "personaId": "p-30s-office",
                "postId": "post-1003",
                "action": {"type": "act", "status": "ok"},
                "result": {"liked": "좋아요", "commented": False},
            },
            ensure_ascii=False,
        )
    )
    written.append(_write_jsonl(base / "agent-01" / "actions.jsonl", log))
    written.append(
        _write_jsonl(
            base / "agent-02" / "actions.jsonl",
            _agent_log(rng, start, run, "agent-02", [("persona", "p-40s-camping")], 20, 0.45, 0.1),
        )
    )
    written.append(
        _write_json(
            base / "expected.json",
            {
                "description": "비율 기준 기대값 (캠페인 평균 반응률)",
                "expected": {"likeRate": 0.62, "commentRate": 0.18},
                "weights": {"likeRate": 0.7, "commentRate": 0.3},
            },
        )
    )

    run = "sim-20261102-02"
    base = drops_dir / "2026-11-02" / "engagement" / run
    written.append(
        _write_jsonl(
            base / "agent-01" / "actions.jsonl",
            _agent_log(rng, start, run, "agent-01", [("personaId", "p-20s-beauty")], 12, 0.6, 0.2),
        )
    )
    # no metric in `expected`: rejected whole, the run is listed as no_expected
    written.append(
        _write_json(
            base / "expected.json",
            {
                "description": "작성 중인 기대값 (지표 누락)",
                "expected": {},
                "weights": {"likeCount": 1},
            },
        )
    )
    return written


HISTORY_AGENTS = ("agent-01", "agent-02")


def history_run(i: int, n_days: int, start: str = "2026-06-01") -> str:
    """The run folder (its set id) of run ``i`` of ``write_history``."""
    day = datetime.fromisoformat(start) + timedelta(days=i % n_days)
    return f"{day.date().isoformat()}/engagement/sim-{i:05d}"


def write_history(drops_dir: Path, n_runs: int, n_days: int, seed: int = 11) -> list[str]:
    """Months of simulations: ``n_runs`` small run folders spread over
    ``n_days`` date folders, each ``len(HISTORY_AGENTS)`` action logs and
    the same expected.json (one series), 3 files a run; returns the run
    folders (set ids). For the night-cost tests and benchmark."""
    rng = random.Random(seed)
    runs = []
    for i in range(n_runs):
        run = history_run(i, n_days)
        base = drops_dir / run
        start = datetime.fromisoformat(run.split("/", 1)[0]).replace(hour=21)
        for agent in HISTORY_AGENTS:
            log = _agent_log(rng, start, run.rsplit("/", 1)[1], agent, [("personaId", "p-20s")], 6, 0.6, 0.2)
            _write_jsonl(base / agent / "actions.jsonl", log)
        _write_json(base / "expected.json", {"expected": {"likeCount": 4, "commentCount": 1}})
        runs.append(run)
    return runs
