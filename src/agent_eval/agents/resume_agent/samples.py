"""Deterministic sample drops with realistic Korean content.

The resume agent's part of the bundled sample (``data/drops``):
``write_samples`` writes two nightly drops that cover every case of SPEC
§3.2-3.4 and every encoding the loader accepts. ``write_resume_csv`` is the
same generator at any size (the benchmark uses it for a 1,000,000-row drop).
Same seed, same bytes.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_eval.agents.resume_agent import COLUMNS as RESUME_AGENT_COLUMNS

TRACK_QUERIES: dict[int, list[tuple[str, str, str]]] = {
    1: [
        ("여성 지원자만 보여줘", "성별 필터=여성 적용", "필터"),
        ("경력 3년 이상 지원자 찾아줘", "경력 필터>=3년 적용", "필터"),
        ("서울 거주 지원자 조회해줘", "지역 필터=서울 적용", "필터"),
        ("최종 합격 상태인 지원자 목록 보여줘", "전형 상태 필터=최종합격", "필터"),
        ("Java 스킬 보유 지원자 검색해줘", "스킬 필터=Java", "필터"),
        ("20대 지원자만 추려줘", "연령 필터=20-29", "필터"),
    ],
    2: [
        ("성별로 지원자 수 집계해줘", "성별 그룹 집계 표", "집계"),
        ("연령대별 평균 면접 점수 보여줘", "연령대 그룹 평균", "집계"),
        ("등급별 지원자 분포 알려줘", "등급 그룹 분포", "집계"),
        ("지원 경로별 합격률 계산해줘", "경로 그룹 합격률", "집계"),
    ],
    3: [
        (
            "개발 직군 지원자 중 면접 점수 상위 10명을 뽑아서 희망 연봉과 비교 분석해줘",
            "상위 10명 추출 + 연봉 비교 분석",
            "복합",
        ),
        (
            "지난달 지원자와 이번달 지원자의 경력 분포를 비교하고 채용 우선순위를 제안해줘",
            "월별 경력 분포 비교 + 우선순위 제안",
            "복합",
        ),
        (
            "서류 통과율이 낮은 공고를 찾고 원인을 분석해서 개선안을 정리해줘",
            "공고별 통과율 분석 + 개선안",
            "복합",
        ),
    ],
}

OK_MESSAGES = [
    "요청하신 조건으로 지원자 목록을 필터링했습니다.",
    "조건에 맞는 지원자 {n}명을 찾았습니다.",
    "집계 결과를 표로 정리했습니다.",
    "분석을 완료했습니다. 주요 결과는 아래와 같습니다.",
]
PARTIAL_MESSAGES = [
    "어떤 공고 기준으로 볼지 선택해 주세요.",
    "기간을 알려주시면 바로 조회하겠습니다.",
    "원하시면 등급별로도 나눠 드릴게요.",
    "조건이 모호합니다. 적용할 직군을 확인해 주세요.",
]
ERROR_TEXTS = ["timeout: 60초 초과", "500 Internal Server Error", "tool call failed: filter_api"]

TRACK_LABELS = {1: ["1", "Track 1", "track1", "T1"], 2: ["2", "Track 2", "t2"], 3: ["3", "Track 3", "TRACK3"]}


@dataclass
class ResumeRow:
    """One CSV record of a resume_agent drop (values in header order)."""

    run_id: str
    item_id: str
    query_id: str
    track: str
    query: str
    expected: str
    category: str
    round: str
    response: str = ""
    error: str = ""
    llm_status: str = ""
    llm_score: str = ""
    llm_comment: str = ""
    raw_json: str = ""

    def values(self) -> list[str]:
        return [
            self.run_id,
            self.item_id,
            self.query_id,
            self.track,
            self.query,
            self.expected,
            self.category,
            self.round,
            self.response,
            self.error,
            self.llm_status,
            self.llm_score,
            self.llm_comment,
            self.raw_json,
        ]


def raw_json(
    message: str | None,
    ui: list[dict] | None,
    seconds: float | None,
    error: object = None,
) -> str:
    doc: dict[str, object] = {}
    if message is not None:
        doc["assistantMessage"] = message
    if ui is not None:
        doc["dataUIList"] = ui
    if seconds is not None:
        doc["responseTimeSec"] = seconds
    doc["error"] = error
    return json.dumps(doc, ensure_ascii=False)


def ui_list(rng: random.Random, track: int) -> list[dict]:
    filter_type = rng.choice(["GENDER", "CAREER", "REGION", "SKILL", "AGE"])
    element = {
        "formType": "FILTER" if track == 1 else "TABLE",
        "actionType": "APPLY",
        "planId": f"plan-{rng.randint(1, 9)}",
        "value": {"nodeId": f"node-{rng.randint(10, 99)}", "nodeType": filter_type},
        "setting": {"operator": "eq", "values": [filter_type.lower()]},
        "filterType": filter_type,
    }
    return [element]


def _latency(rng: random.Random, track: int) -> float:
    if track == 3:
        return round(rng.choice([rng.uniform(8, 20), rng.uniform(20, 45), rng.uniform(45, 75)]), 2)
    return round(rng.choice([rng.uniform(1, 5), rng.uniform(5, 10), rng.uniform(10, 25)]), 2)


def generated_rows(rng: random.Random, n_queries: int, rounds: list[str], run_prefix: str) -> Iterator[ResumeRow]:
    """Ordinary rows: every query in every round, outcomes drawn at random."""
    catalogue = [(t, q) for t, qs in TRACK_QUERIES.items() for q in qs]
    for round_index, round_label in enumerate(rounds, start=1):
        run_id = f"{run_prefix}-r{round_index}"
        for q in range(1, n_queries + 1):
            track, (query, expected, category) = catalogue[(q - 1) % len(catalogue)]
            roll = rng.random()
            seconds = _latency(rng, track)
            row = ResumeRow(
                run_id=run_id,
                item_id=f"{run_id}-i{q:06d}",
                query_id=f"Q{q:06d}",
                track=rng.choice(TRACK_LABELS[track]),
                query=query,
                expected=expected,
                category=category,
                round=round_label,
            )
            if roll < 0.70:
                msg = rng.choice(OK_MESSAGES).format(n=rng.randint(1, 40))
                row.raw_json = raw_json(msg, ui_list(rng, track), seconds)
            elif roll < 0.85:
                msg = rng.choice(PARTIAL_MESSAGES)
                row.raw_json = raw_json(msg, [], seconds)
            elif roll < 0.95:
                err = rng.choice(ERROR_TEXTS)
                row.error = err
                row.raw_json = raw_json(None, None, seconds, error=err)
            else:
                row.raw_json = raw_json("", [], seconds)
            yield row


def special_rows(run_prefix: str, rounds: list[str]) -> list[ResumeRow]:
    """Hand-placed rows that exercise every rule of SPEC §3.2-3.4."""
    r1, r2 = rounds[0], rounds[1]
    ui = [
        {
            "formType": "FILTER",
            "actionType": "APPLY",
            "planId": "plan-1",
            "value": {"nodeId": "node-7", "nodeType": "GENDER"},
            "setting": {"values": ["female"]},
            "filterType": "GENDER",
        }
    ]

    def row(q: str, rnd: str, track: str, **kw: str) -> ResumeRow:
        base = ResumeRow(
            run_id=f"{run_prefix}-special",
            item_id=f"{run_prefix}-{q}-{rnd.replace('/', '_')}",
            query_id=q,
            track=track,
            query="신입 지원자 중 포트폴리오 제출자만 보여줘",
            expected="신입 + 포트폴리오 필터",
            category="필터",
            round=rnd,
        )
        for key, value in kw.items():
            setattr(base, key, value)
        return base

    multi_line = '지원자 목록입니다.\n- 김민지 (신입)\n- 이서준 (신입, 포트폴리오 "있음")'
    return [
        # multi-line quoted cells in 응답 and in the JSON message
        row("S-MULTILINE", r1, "Track 1", response=multi_line, raw_json=raw_json(multi_line, ui, 3.2)),
        row("S-MULTILINE", r2, "Track 1", response=multi_line, raw_json=raw_json(multi_line, ui, 4.9)),
        # malformed Raw JSON -> error (raw_json_invalid), consistent fail/fail
        row("S-BADJSON", r1, "2", raw_json='{"assistantMessage": "집계 결과입니다", "dataUIList": ['),
        row("S-BADJSON", r2, "2", raw_json="{'assistantMessage': '작은따옴표 JSON'}"),
        # blank Raw JSON: the message is 응답
        row("S-BLANKJSON", r1, "T1", response="조건에 맞는 지원자 12명을 찾았습니다."),
        row("S-BLANKJSON", r2, "T1", response="", raw_json="   "),
        # raw.error forms: false / blank / whitespace are not errors; text is
        row("S-RAWERR", r1, "track1", raw_json=raw_json("필터를 적용했습니다.", ui, 2.0, error=False)),
        row("S-RAWERR", r2, "track1", raw_json=raw_json("필터를 적용했습니다.", ui, 2.0, error="tool timeout")),
        row("S-RAWBLANK", r1, "1", raw_json=raw_json("필터를 적용했습니다.", ui, 5.0, error="  ")),
        row("S-RAWBLANK", r2, "1", raw_json=raw_json("필터를 적용했습니다.", ui, 5.01, error="")),
        # 오류 column beats everything
        row("S-ERRCOL", r1, "3", error="timeout: 60초 초과", raw_json=raw_json("분석 결과입니다.", ui, 61.0)),
        row("S-ERRCOL", r2, "3", raw_json=raw_json("분석 결과입니다.", ui, 60.0)),
        # empty: no message, no dataUIList; dataUIList alone is enough for ok
        row("S-EMPTY", r1, "2", raw_json=raw_json("", [], 7.5)),
        row("S-EMPTY", r2, "2", raw_json=raw_json(None, ui, 8.0)),
        # partial keywords
        row("S-PARTIAL", r1, "Track 2", raw_json=raw_json("기간을 알려주시면 집계하겠습니다.", [], 10.0)),
        row("S-PARTIAL", r2, "Track 2", raw_json=raw_json("원하시면 등급별로 나눠 드릴게요.", ui, 15.0)),
        # LLM 점수: valid overrides, invalid forms are ignored and flagged
        row(
            "S-LLM",
            r1,
            "1",
            llm_status="DONE",
            llm_score="3.5",
            llm_comment="필터 일부 누락",
            raw_json=raw_json("필터를 적용했습니다.", ui, 20.0),
        ),
        row(
            "S-LLM",
            r2,
            "1",
            llm_status="DONE",
            llm_score="좋음",
            llm_comment="숫자가 아닌 점수",
            raw_json=raw_json("필터를 적용했습니다.", ui, 20.01),
        ),
        row("S-LLM-RANGE", r1, "1", llm_score="7", raw_json=raw_json("필터를 적용했습니다.", ui, 1.0)),
        row("S-LLM-RANGE", r2, "1", llm_score="-1", raw_json=raw_json("필터를 적용했습니다.", ui, None)),
        # Track 3 latency around its bounds
        row("S-MULTI", r1, "Track 3", raw_json=raw_json("분석을 완료했습니다.", ui, 20.0)),
        row("S-MULTI", r2, "Track 3", raw_json=raw_json("분석을 완료했습니다.", ui, 20.01)),
        # duplicated (query, round): the second line is flagged, not paired
        row("S-DUP", r1, "1", raw_json=raw_json("필터를 적용했습니다.", ui, 4.0)),
        row("S-DUP", r1, "1", raw_json=raw_json("", [], 4.0)),
        row("S-DUP", r2, "1", raw_json=raw_json("필터를 적용했습니다.", ui, 4.0)),
        # a query in round 1 only: unpaired
        row("S-ONLY-R1", r1, "2", raw_json=raw_json("집계 결과입니다.", ui, 9.0)),
        # invalid tracks: rejected rows
        row("S-BADTRACK", r1, "Track 4", raw_json=raw_json("결과입니다.", ui, 3.0)),
        row("S-BADTRACK", r2, "기타", raw_json=raw_json("결과입니다.", ui, 3.0)),
    ]


def write_resume_csv(
    path: Path,
    n_queries: int,
    rounds: list[str],
    seed: int = 7,
    encoding: str = "utf-8",
    with_special_rows: bool = True,
    run_prefix: str = "run",
) -> Path:
    """Write one resume_agent CSV; streams, so it scales to millions of rows."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding=encoding, newline="") as handle:
        writer = csv.writer(handle, lineterminator="\r\n")
        writer.writerow(RESUME_AGENT_COLUMNS)
        for r in generated_rows(rng, n_queries, rounds, run_prefix):
            writer.writerow(r.values())
        if with_special_rows:
            for r in special_rows(run_prefix, rounds):
                writer.writerow(r.values())
    return path


def write_rows(out: Path, rows: int, seed: int = 7) -> Path:
    """`agent-eval samples --rows N`: instead of the bundled sample, one
    resume CSV of about ``rows`` rows (three rounds of N/3 queries, no
    special rows), for benchmarks."""
    rounds = ["1/1", "2/1", "3/1"]
    return write_resume_csv(
        out / "2026-11-01" / "resume_agent_bench.csv",
        n_queries=max(1, rows // len(rounds)),
        rounds=rounds,
        seed=seed,
        with_special_rows=False,
    )


def write_samples(drops_dir: Path) -> list[Path]:
    """Resume-agent sample: two nights, every encoding, every case of SPEC §3."""
    written = [
        write_resume_csv(
            drops_dir / "2026-11-01" / "resume_agent_nightly.csv",
            n_queries=24,
            rounds=["1/1", "2/1"],
            seed=101,
            run_prefix="n1101",
        ),
        write_resume_csv(
            drops_dir / "2026-11-01" / "resume_agent_excel_export.csv",
            n_queries=12,
            rounds=["1/1", "2/1", "3/1"],
            seed=202,
            encoding="cp949",
            with_special_rows=False,
            run_prefix="x1101",
        ),
        write_resume_csv(
            drops_dir / "2026-11-02" / "resume_agent_nightly.csv",
            n_queries=24,
            rounds=["1/1", "2/1"],
            seed=102,
            encoding="utf-8-sig",
            run_prefix="n1102",
        ),
    ]
    # The same bytes delivered again under another name: counted once.
    repeat = drops_dir / "2026-11-02" / "resume_agent_excel_export_copy.csv"
    repeat.write_bytes(written[1].read_bytes())
    written.append(repeat)
    # A file missing a required column: rejected whole, the others still load.
    broken = drops_dir / "2026-11-02" / "resume_agent_broken_export.csv"
    header = [c for c in RESUME_AGENT_COLUMNS if c != "Raw JSON"]
    broken.write_text(
        ",".join(header)
        + "\r\n"
        + ",".join(["b1", "b1-i1", "Q1", "1", "여성 지원자만 보여줘", "필터", "필터", "1/1", "결과", "", "", "", ""])
        + "\r\n",
        encoding="utf-8",
    )
    written.append(broken)
    return written
