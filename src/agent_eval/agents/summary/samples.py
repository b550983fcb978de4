"""Sample drops for the insurance summary metrics (SPEC §6).

An EvalVault JSON dataset of Korean insurance consultation summaries (UTF-8
with BOM, as Windows tools write it) whose cases cover every rule: supported
and unsupported amounts (만원 / 억원 / 원, $), durations and dates, risk tags
covered or missing, an unknown tag, definitive expressions (`전액  지급` with
two spaces, 반드시), follow-up tagged and untagged, a case without contexts;
plus a deliberately invalid dataset (a case without contexts), rejected whole.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CASES: list[dict[str, Any]] = [
    {
        "id": "ins-001",
        "question": "암 진단비 상담 요약",
        "answer": "암 진단 시 진단비 3,000만원 지급, 보장 한도 1억원. 가입 후 90일 면책기간 적용. "
        "청구 시 진단서 제출 필요. 다만 유사암은 별도 조건이며 담당자 확인 필요.",
        "contexts": [
            "고객: 암 진단받으면 얼마 나오나요? 상담원: 진단비는 30,000,000원이고 총 보장 한도는 100,000,000원입니다.",
            "상담원: 가입 후 90일은 면책기간입니다. 청구하실 때 진단서가 필요하고, 다만 유사암은 조건이 다릅니다.",
        ],
        "ground_truth": "암 진단비 3천만원(한도 1억원), 90일 면책기간, 진단서 필요, 유사암 조건 별도 확인.",
        "metadata": {
            "summary_intent": "agent_notes",
            "summary_tags": ["limit", "waiting_period", "documents_required", "needs_followup"],
        },
    },
    {
        "id": "ins-002",
        "question": "입원비 청구 상담 요약",
        "answer": "입원 일당 5만원, 최대 180일 보장. 자기부담금 10% 공제 후 지급.",
        "contexts": [
            "상담원: 입원 일당은 50,000원이며 최대 180일까지 보장됩니다. 본인 자기부담 10%가 공제됩니다.",
        ],
        "metadata": {"summary_intent": "agent_notes", "summary_tags": ["deductible", "limit"]},
    },
    {
        "id": "ins-003",
        "question": "수술비 상담 요약",
        "answer": "수술비는 무조건 전액  지급되며 반드시 다음 달 입금됩니다.",
        "contexts": [
            "상담원: 수술비는 약관상 수술 종류별 한도 내에서 지급되며, 면책 사유에 해당하면 지급 불가합니다.",
        ],
        "metadata": {"summary_intent": "agent_notes", "summary_tags": ["exclusion", "limit"]},
    },
    {
        "id": "ins-004",
        "question": "보험료 인상 안내 요약",
        "answer": "2025.01.01부터 보험료 3.5% 인상, 월 보험료 42,000원 예정.",
        "contexts": [
            "상담원: 갱신 시점인 2025-01-01부터 보험료가 3.50% 인상되어 월 45,000원이 됩니다.",
        ],
    },
    {
        "id": "ins-005",
        "question": "해외 치료비 상담 요약",
        "answer": "Overseas treatment covered up to $10,000 per year; the deductible is $200. Please follow up with the claims team.",
        "contexts": [
            "Agent: overseas medical expenses are covered up to USD 10,000 per year with a $200 deductible.",
        ],
        "metadata": {"summary_tags": ["limit", "deductible", "needs_followup"]},
    },
    {
        "id": "ins-006",
        "question": "해지환급금 문의 요약",
        "answer": "고객이 해지환급금을 문의하여 안내함.",
        "contexts": [
            "고객: 지금 해지하면 얼마 돌려받나요? 상담원: 현재 해지환급금은 1,250,000원이며 2024/12/31 기준입니다.",
        ],
        "metadata": {"summary_tags": ["surrender_value"]},
    },
    {
        "id": "ins-007",
        "question": "실손 청구 서류 상담 요약",
        "answer": "실손 청구에는 영수증과 진료비 세부내역서 필요. 추가 확인 필요.",
        "contexts": [],
        "metadata": {"summary_tags": ["documents_required"]},
    },
    {
        "id": "ins-008",
        "question": "보장 개시일 문의 요약",
        "answer": "보장 개시일은 계약일로부터 30일 후이며 대기기간 중 발생한 질병은 보장 제외.",
        "contexts": [
            "상담원: 보장은 계약일로부터 30일 이후 개시되며, 대기기간 중 발병한 질병은 보장에서 제외됩니다.",
        ],
        "metadata": {"summary_intent": "agent_notes", "summary_tags": ["waiting_period", "exclusion"]},
    },
]

DATASET: dict[str, Any] = {
    "name": "보험 상담 요약 (insurance-agent-notes)",
    "version": "2026.11.1",
    "description": "상담원 메모 요약 평가용 샘플",
    "thresholds": {"summary_accuracy": 0.8, "faithfulness": 0.7},
    "metadata": {"domain": "insurance", "language": "ko", "source": "sample"},
    "test_cases": CASES,
}

BROKEN: dict[str, Any] = {
    "name": "보험 상담 요약 (잘못된 내보내기)",
    "version": "2026.11.2",
    "test_cases": [
        {"id": "bad-001", "question": "요약", "answer": "요약문", "contexts": ["원문"]},
        {"id": "bad-002", "question": "요약", "answer": "contexts가 빠진 케이스"},
    ],
}


def _dump(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def write_samples(drops_dir: Path) -> list[Path]:
    """The bundled summary sample: one valid dataset (UTF-8 with BOM), one
    invalid dataset (rejected: a case lacks contexts)."""
    good = drops_dir / "2026-11-01" / "summary_agent_notes.json"
    bad = drops_dir / "2026-11-02" / "summary_broken_export.json"
    for path in (good, bad):
        path.parent.mkdir(parents=True, exist_ok=True)
    good.write_bytes(b"\xef\xbb\xbf" + _dump(DATASET).encode("utf-8"))
    bad.write_text(_dump(BROKEN), encoding="utf-8")
    return [good, bad]
