"""Deterministic sample drops of the recruit agent (H.채용, SPEC §4).

``write_samples`` writes two nightly JSONL files with realistic
Korean recruiting requests: every query repeated over rounds (consistency),
SINGLE and MULTI latency classes, intentVerdict given or not, accuracy from
``accuracyChecks`` or from ``@check`` lines, and hand-placed lines for the
rules' edge cases, including deliberate bad input (a line that is not JSON,
a line without ``raw``, a blank ``itemId``). Same seed, same bytes.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RecruitQuery:
    """One question of the catalogue and what a correct answer looks like."""

    label: str
    latency_class: str
    query: str
    expected: str
    category: str
    ui: list[dict[str, Any]]
    checks: list[str] = field(default_factory=list)
    message: str = ""


def _element(
    form: str,
    action: str,
    plan: str,
    node: str,
    node_type: str,
    setting: dict[str, Any],
    filter_type: str | None = None,
) -> dict[str, Any]:
    element: dict[str, Any] = {
        "formType": form,
        "actionType": action,
        "planId": plan,
        "value": {"nodeId": node, "nodeType": node_type},
        "setting": setting,
    }
    if filter_type is not None:
        element["filterType"] = filter_type
    return element


CATALOGUE: list[RecruitQuery] = [
    RecruitQuery(
        "VIEW",
        "SINGLE",
        "여성 지원자만 보여줘",
        "성별 필터(여성) 적용",
        "필터",
        [
            _element(
                "FILTER",
                "APPLY",
                "plan-dev-01",
                "node-gender",
                "GENDER",
                {"operator": "eq", "values": ["female"]},
                "GENDER",
            )
        ],
        ["@check dataUIList[0].filterType == GENDER", "@check dataUIList[0].setting.values contains female"],
        "조건에 맞는 여성 지원자 {n}명을 조회했습니다.",
    ),
    RecruitQuery(
        "VIEW",
        "SINGLE",
        "경력 3년 이상 지원자 찾아줘",
        "경력 필터 >= 3년",
        "필터",
        [
            _element(
                "FILTER",
                "APPLY",
                "plan-dev-01",
                "node-career",
                "CAREER",
                {"operator": "gte", "values": [3], "unit": "year"},
                "CAREER",
            )
        ],
        ["@check dataUIList[0].filterType == CAREER", "@check dataUIList[0].setting.values[0] >= 3"],
        "경력 3년 이상인 지원자 {n}명을 찾았습니다.",
    ),
    RecruitQuery(
        "VIEW",
        "SINGLE",
        "서울이나 경기 거주 지원자 검색해줘",
        "지역 필터(서울, 경기)",
        "필터",
        [
            _element(
                "FILTER",
                "APPLY",
                "plan-dev-01",
                "node-region",
                "REGION",
                {"operator": "in", "values": ["서울", "경기"]},
                "REGION",
            )
        ],
        ["@check dataUIList[0].filterType in [REGION, ADDRESS]", "@check dataUIList[*].setting.values contains 경기"],
        "서울·경기 거주 지원자 {n}명을 검색했습니다.",
    ),
    RecruitQuery(
        "ADD",
        "SINGLE",
        "백엔드 공고에 코딩 테스트 단계 추가해줘",
        "코딩 테스트 단계 생성",
        "전형",
        [
            _element(
                "STAGE_FORM",
                "CREATE",
                "plan-be-02",
                "node-stage-2",
                "STAGE",
                {"name": "코딩 테스트", "order": 2, "required": True},
            )
        ],
        ["@check dataUIList[0].actionType == CREATE", "@check dataUIList[0].setting.name == 코딩 테스트"],
        "백엔드 공고에 코딩 테스트 단계를 추가했습니다.",
    ),
    RecruitQuery(
        "UPDATE",
        "SINGLE",
        "1차 면접 단계 이름을 실무 면접으로 바꿔줘",
        "단계명 변경",
        "전형",
        [_element("STAGE_FORM", "UPDATE", "plan-be-02", "node-stage-3", "STAGE", {"name": "실무 면접"})],
        ["@check dataUIList[0].actionType == UPDATE", "@check dataUIList[0].setting.name contains 실무"],
        "1차 면접 단계 이름을 실무 면접으로 변경했습니다.",
    ),
    RecruitQuery(
        "DELETE",
        "SINGLE",
        "인적성 검사 단계 없애줘",
        "인적성 검사 단계 삭제",
        "전형",
        [_element("STAGE_FORM", "DELETE", "plan-be-02", "node-stage-4", "STAGE", {"name": "인적성 검사"})],
        ["@check dataUIList[0].actionType == DELETE", "@check error not_exists"],
        "인적성 검사 단계를 삭제했습니다.",
    ),
    RecruitQuery(
        "MOVE",
        "MULTI",
        "서류 합격자 전원을 1차 면접 단계로 보내줘",
        "서류 합격자 일괄 이동",
        "이동",
        [
            _element(
                "PIPELINE",
                "MOVE",
                "plan-be-02",
                "node-stage-3",
                "STAGE",
                {"targets": ["cand-101", "cand-102", "cand-107"], "toStage": "1차 면접"},
            )
        ],
        [
            "@check dataUIList[0].actionType == MOVE",
            "@check movedCount > 0",
            "@check dataUIList[0].setting.targets[*] exists",
        ],
        "서류 합격자 {n}명을 1차 면접 단계로 이동했습니다.",
    ),
    RecruitQuery(
        "VIEW",
        "MULTI",
        "지원 경로별 합격률을 집계해서 표로 보여줘",
        "경로별 합격률 표",
        "집계",
        [
            _element(
                "TABLE",
                "AGGREGATE",
                "plan-report-01",
                "node-report",
                "REPORT",
                {"groupBy": ["channel"], "metrics": ["applicants", "passRate"]},
            )
        ],
        [],
        "지원 경로별 합격률을 표로 정리해 보여드립니다.",
    ),
    RecruitQuery(
        "ADD",
        "MULTI",
        "데이터 엔지니어 공고를 새로 등록하고 서류-과제-면접 단계를 만들어줘",
        "공고 생성 + 3단계 생성",
        "복합",
        [
            _element(
                "POSTING_FORM",
                "CREATE",
                "plan-de-03",
                "node-posting",
                "POSTING",
                {"title": "데이터 엔지니어", "employment": "정규직"},
            ),
            _element(
                "STAGE_FORM", "CREATE", "plan-de-03", "node-stages", "STAGE", {"stages": ["서류", "과제", "면접"]}
            ),
        ],
        ["@check dataUIList[*].actionType == CREATE", "@check dataUIList[1].setting.stages contains 과제"],
        "데이터 엔지니어 공고를 등록하고 전형 단계 3개를 추가했습니다.",
    ),
]

CLARIFY_MESSAGES = [
    "어떤 공고 기준으로 적용할지 선택해 주세요.",
    "기간을 알려주시면 바로 조회하겠습니다.",
    "원하시면 직군별로도 나눠 드릴게요.",
]
ERRORS = ["timeout: 60초 초과", "502 Bad Gateway", "tool call failed: pipeline_api"]
GOOD_VERDICTS = ["PERFECT", "PERFECT", "GOOD"]


def _latency(rng: random.Random, latency_class: str) -> float:
    if latency_class == "MULTI":
        return round(rng.choice([rng.uniform(8, 20), rng.uniform(20, 45), rng.uniform(45, 70)]), 2)
    return round(rng.choice([rng.uniform(1, 5), rng.uniform(5, 10), rng.uniform(10, 24)]), 2)


def _shuffled(rng: random.Random, ui: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same dataUIList with element and key order changed (same signature)."""
    elements = [dict(reversed(list(copy.deepcopy(e).items()))) for e in ui]
    rng.shuffle(elements)
    return elements


def _line(**fields: Any) -> str:
    return json.dumps(fields, ensure_ascii=False)


def _raw(**fields: Any) -> str:
    return json.dumps(fields, ensure_ascii=False)


def generated_lines(rng: random.Random, rounds: list[str], run_prefix: str) -> list[str]:
    """Every catalogue query in every round, outcomes drawn at random."""
    lines: list[str] = []
    for round_index, round_label in enumerate(rounds, start=1):
        run_id = f"{run_prefix}-r{round_index}"
        for number, q in enumerate(CATALOGUE, start=1):
            item: dict[str, Any] = {
                "runId": run_id,
                "itemId": f"{run_id}-i{number:03d}",
                "queryId": f"H{number:03d}",
                "round": round_label,
                "query": q.query,
                "expectedResult": "\n".join([q.expected, *q.checks]),
                "category": q.category,
                "latencyClass": q.latency_class,
            }
            seconds = _latency(rng, q.latency_class)
            message = q.message.format(n=rng.randint(2, 40))
            roll = rng.random()
            raw: dict[str, Any]
            if roll < 0.55:
                raw = {"assistantMessage": message, "dataUIList": q.ui}
                item["intentVerdict"] = rng.choice(GOOD_VERDICTS)
            elif roll < 0.65:
                raw = {"assistantMessage": message, "dataUIList": _shuffled(rng, q.ui)}
            elif roll < 0.75:
                raw = {"assistantMessage": rng.choice(CLARIFY_MESSAGES), "dataUIList": []}
                item["intentVerdict"] = rng.choice(["PARTIAL", "WEAK"])
            elif roll < 0.85:
                wrong = copy.deepcopy(q.ui)
                wrong[0]["actionType"] = "VIEW"
                wrong[0]["filterType"] = "AGE"
                raw = {"assistantMessage": message, "dataUIList": wrong}
                item["intentVerdict"] = "RELATED_BUT_WRONG"
            elif roll < 0.93:
                raw = {"assistantMessage": "", "dataUIList": [], "error": None}
                item["error"] = rng.choice(ERRORS)
                item["intentVerdict"] = "FAILED"
            else:
                raw = {"assistantMessage": "", "dataUIList": []}
            if q.label == "MOVE" and raw.get("dataUIList"):
                raw["movedCount"] = str(len(q.ui[0]["setting"]["targets"]))
            if not q.checks and raw.get("dataUIList"):
                item["accuracyChecks"] = [
                    {"name": "groupBy", "passed": True},
                    {"name": "passRate", "passed": rng.random() < 0.8},
                ]
            if rng.random() < 0.25:
                item["latency_ms"] = int(seconds * 1000)  # old harness: no responseTimeSec
            else:
                raw["responseTimeSec"] = seconds
            item["raw"] = json.dumps(raw, ensure_ascii=False)
            lines.append(json.dumps(item, ensure_ascii=False))
    return lines


def special_lines(run_prefix: str) -> list[str]:
    """Hand-placed lines for the rules' edge cases (SPEC §4.1-4.3)."""
    run_id = f"{run_prefix}-special"
    ui = CATALOGUE[0].ui
    return [
        # a query run once: consistency 0 (N < 2)
        _line(
            runId=run_id,
            itemId=f"{run_id}-once",
            queryId="S-ONCE",
            round="1/1",
            query="지난주 지원자 수 알려줘",
            category="집계",
            latencyClass="SINGLE",
            intentLabel="VIEW",
            accuracyChecks=[{"name": "count", "passed": True}],
            raw=_raw(assistantMessage="지난주 지원자는 84명입니다.", dataUIList=[], responseTimeSec=2.1),
        ),
        # raw that is not valid JSON: scored, error, stability 0, accuracy 0
        _line(
            runId=run_id,
            itemId=f"{run_id}-badraw",
            queryId="S-BADRAW",
            round="1/1",
            query="불합격자 명단 삭제해줘",
            category="삭제",
            expectedResult="@check dataUIList exists",
            raw='{"assistantMessage": "불합격자 명단을 삭제',
            latency_ms=3200,
        ),
        # @check lines that do not parse: failed checks (invalid_check), never skipped
        _line(
            runId=run_id,
            itemId=f"{run_id}-badcheck",
            queryId="S-BADCHECK",
            round="1/1",
            query="여성 지원자만 보여줘",
            category="필터",
            latencyClass="SINGLE",
            expectedResult="@check dataUIList[0].filterType = GENDER\n@check dataUIList[0]..setting exists\n"
            "@check dataUIList[0].filterType == GENDER",
            raw=_raw(assistantMessage="여성 지원자 12명을 조회했습니다.", dataUIList=ui, responseTimeSec=3.0),
        ),
        # unknown latencyClass: scored as SINGLE and flagged
        _line(
            runId=run_id,
            itemId=f"{run_id}-class",
            queryId="S-CLASS",
            round="1/1",
            query="면접관 배정 현황 보여줘",
            category="조회",
            latencyClass="BATCH",
            raw=_raw(assistantMessage="면접관 배정 현황을 보여드립니다.", dataUIList=[], responseTimeSec=9.5),
        ),
        # deliberate bad input: rejected rows with their line numbers
        '{"runId": "'
        + run_id
        + '", "itemId": "broken", "queryId": "S-BROKEN", "raw": "{\\"assistantMessage\\": \\"잘린 줄',
        _line(
            runId=run_id,
            itemId=f"{run_id}-noraw",
            queryId="S-NORAW",
            round="1/1",
            query="합격자 명단 보여줘",
            category="조회",
        ),
        _line(
            runId=run_id,
            itemId="  ",
            queryId="S-NOID",
            round="1/1",
            query="공고 목록 보여줘",
            raw=_raw(assistantMessage="공고 목록입니다.", dataUIList=[]),
        ),
    ]


def write_recruit_jsonl(
    path: Path, rounds: list[str], seed: int, run_prefix: str, with_special_lines: bool = True, encoding: str = "utf-8"
) -> Path:
    rng = random.Random(seed)
    lines = generated_lines(rng, rounds, run_prefix)
    if with_special_lines:
        lines += special_lines(run_prefix)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding=encoding)
    return path


def write_samples(drops_dir: Path) -> list[Path]:
    """Recruit-agent sample: two nights (the second with a UTF-8 BOM)."""
    return [
        write_recruit_jsonl(
            drops_dir / "2026-11-01" / "recruit_agent_nightly.jsonl",
            rounds=["1/1", "2/1", "3/1"],
            seed=301,
            run_prefix="h1101",
        ),
        write_recruit_jsonl(
            drops_dir / "2026-11-02" / "recruit_agent_nightly.jsonl",
            rounds=["1/1", "2/1"],
            seed=302,
            run_prefix="h1102",
            with_special_lines=False,
            encoding="utf-8-sig",
        ),
    ]
