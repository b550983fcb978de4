"""Insurance summary metrics (SPEC §6) end to end: fixture datasets built by
dbt, every expected number worked out by hand from the spec and the seeds.

Fixture tests/fixtures/summary_basic/2026-11-03/:
- summary_claims.json: 7 cases, 5 scorable (tc-006 has contexts as a string,
  the second tc-001 repeats an id); thresholds override summary_accuracy=0.7
  (and lists faithfulness, which is not a summary metric: kept, unused).
- summary_bom.json: UTF-8 with BOM, one case with a numeric id (7).
- three invalid datasets, rejected whole.
"""

from __future__ import annotations

import pytest
from openpyxl import load_workbook

from agent_eval import cli
from agent_eval.agents.summary import commands
from agent_eval.agents.summary import report as summary_report
from conftest import Warehouse

CLAIMS = "2026-11-03/summary_claims.json"
BOM = "2026-11-03/summary_bom.json"
METRICS = ["summary_accuracy", "summary_risk_coverage", "summary_non_definitive", "summary_needs_followup"]


@pytest.fixture(scope="module")
def wh(module_built) -> Warehouse:
    wh, code = module_built("summary_basic")
    assert code == cli.EXIT_REJECTED  # three rejected files, two rejected cases
    return wh


def test_invalid_datasets_are_rejected_whole_with_the_reason(wh):
    assert wh.query("select source_file, reject_reason from ops.rejected_files where is_latest order by 1") == [
        (
            "2026-11-03/summary_bad_threshold.json",
            "not a valid dataset: threshold 'summary_accuracy' = 1.5 is not in [0, 1]",
        ),
        ("2026-11-03/summary_missing_answer.json", "not a valid dataset: test_cases[0] lacks answer"),
        ("2026-11-03/summary_no_cases.json", "not a valid dataset: no 'test_cases' list"),
    ]
    assert wh.query("select encoding from ops.load_log where source_file = ?", [BOM]) == [("utf-8-sig",)]


def test_unscorable_cases_are_rejected_rows_and_counts_reconcile(wh):
    assert wh.query(
        "select line_number, reason, reason_detail from ops.rejected_rows where source_file = ? order by 1",
        [CLAIMS],
    ) == [
        (5, "invalid_contexts", "test_cases[5] (id 'tc-006'): invalid_contexts: contexts is not a list"),
        (6, "duplicate_case_id", "test_cases[6] (id 'tc-001'): duplicate_case_id: an earlier case has the same id"),
    ]
    # 7 cases in the file = 5 scored + 2 rejected; the BOM file: 1 = 1 + 0
    assert wh.query(
        "select source_file, n_data_records, n_valid_rows, n_rejected_rows, n_scored_rows "
        "from ops.file_reconciliation where kind = 'summary' order by 1"
    ) == [(BOM, 1, 1, 0, 1), (CLAIMS, 7, 5, 2, 5)]


def test_case_scores_by_hand(wh):
    rows = {r["case_id"]: r for r in wh.dicts("select * from marts.summary_case_scores where set_id = ?", [CLAIMS])}
    assert sorted(rows) == ["tc-001", "tc-002", "tc-003", "tc-004", "tc-005"]

    c1 = rows["tc-001"]
    # answer: 3,000만원 -> 3000 x 10^4 = 30000000 krw; 1.5억원 -> 1.5 x 10^8 =
    # 150000000 krw; 90일 -> 90 day; keywords 면책(면책기간) 단서(진단서) 다만 조건 한도.
    # contexts: 30,000,000원, 150,000,000원, 90일, 한도, 면책, 진단서, 다만, 조건
    # -> 8 of 8 supported = 1.0
    assert c1["summary_entities"] == (
        "currency:150000000:krw; currency:30000000:krw; duration:90:day; "
        "keyword:다만; keyword:단서; keyword:면책; keyword:조건; keyword:한도"
    )
    assert (c1["n_summary_entities"], c1["n_supported_entities"]) == (8, 8)
    # tags waiting_period(면책기간) documents_required(진단서) limit(한도)
    # needs_followup(확인 필요) all covered: 4/4; no definitive word; tagged
    # needs_followup with 담당자 확인 / 확인 필요 -> 1.0
    assert [c1[m] for m in METRICS] == [1.0, 1.0, 1.0, 1.0]
    assert c1["followup_expressions"] == "담당자 확인, 확인 필요"
    assert c1["is_all_pass"] is True

    c2 = rows["tc-002"]
    # answer: 20년 -> duration:20:year, $150 -> currency:150:usd, 무조건 contains 조건.
    # contexts: 10%, 20년, 120 USD, 한도, 자기부담 -> only 20 year supported: 1/3
    assert c2["summary_accuracy"] == pytest.approx(1 / 3)
    assert c2["unsupported_entities"] == "currency:150:usd; keyword:조건"
    # tags deductible, limit, exclusion: none of their keywords in the answer -> 0/3
    assert c2["summary_risk_coverage"] == 0.0
    assert c2["missing_tags"] == "deductible, exclusion, limit"
    # 무조건 and `전액  지급` (two spaces) are definitive -> 0.0
    assert c2["summary_non_definitive"] == 0.0
    assert c2["definitive_expressions"] == "무조건, 전액 지급"
    # tags without needs_followup and no follow-up expression -> 1.0
    assert c2["summary_needs_followup"] == 1.0
    assert c2["n_failed_metrics"] == 3  # accuracy 0.33 < 0.7, coverage 0 < 0.9, 0 < 0.8

    c3 = rows["tc-003"]
    # English keywords, any case: DEDUCTIBLE, Exclusion, conditions -> 3 entities,
    # all in the context (deductible, exclusions, conditions) -> 1.0
    assert c3["summary_entities"] == "keyword:condition; keyword:deductible; keyword:exclusion"
    assert c3["summary_accuracy"] == 1.0
    # no tags -> coverage 1.0; untagged but says "follow up" -> needs_followup 0.0
    assert (c3["summary_risk_coverage"], c3["n_expected_tags"]) == (1.0, 0)
    assert c3["summary_needs_followup"] == 0.0
    assert c3["has_followup_tag"] is False and c3["has_followup_expression"] is True

    c4 = rows["tc-004"]
    # no entity in the answer, the context has 2024.03.15 (date:20240315) -> 0.5
    assert (c4["n_summary_entities"], c4["n_context_entities"], c4["summary_accuracy"]) == (0, 2, 0.5)
    # documents_required not covered (no 서류/진단서/영수증/documents) -> 0/1
    assert c4["summary_risk_coverage"] == 0.0

    c5 = rows["tc-005"]
    # no contexts -> accuracy 0.0 although the answer has 2 entities
    assert (c5["n_contexts"], c5["n_summary_entities"], c5["summary_accuracy"]) == (0, 2, 0.0)
    # tags "Limit ", unknown_tag, needs_followup, limit -> {limit, needs_followup,
    # unknown_tag}; limit (한도) and needs_followup (추가 확인) covered: 2/3
    assert c5["summary_tags"] == "limit, needs_followup, unknown_tag"
    assert c5["summary_risk_coverage"] == pytest.approx(2 / 3)
    assert c5["unknown_tags"] == "unknown_tag"

    # offline: no judgment, final = rule
    for row in rows.values():
        for m in METRICS:
            assert row[m] == row[f"{m}_rule_score"]
            assert row[f"{m}_llm_score"] is None


def test_bom_dataset_normalizes_percent_and_dates(wh):
    row = wh.dicts("select * from marts.summary_case_scores where set_id = ?", [BOM])[0]
    # numeric id 7 -> '7'; 3.50% = 3.5%; 2025-01-01 = 2025/1/1 -> 20250101: 2/2
    assert row["case_id"] == "7"
    assert row["summary_entities"] == "date:20250101; percent:3.5:percent"
    assert row["summary_accuracy"] == 1.0


def test_set_metrics_thresholds_and_warnings(wh):
    metrics = {r["metric"]: r for r in wh.dicts("select * from marts.summary_set_metrics where set_id = ?", [CLAIMS])}
    acc = metrics["summary_accuracy"]
    # (1 + 1/3 + 1 + 0.5 + 0) / 5 = 0.5667; dataset threshold 0.7 overrides 0.9;
    # pass: tc-001, tc-003 -> 2/5
    assert acc["mean_score"] == pytest.approx((1 + 1 / 3 + 1 + 0.5 + 0) / 5)
    assert (acc["threshold"], acc["threshold_source"], acc["pass_rate"]) == (0.7, "dataset", 0.4)
    assert acc["is_below_threshold"] is True
    assert acc["warning"] == "summary_accuracy mean 0.567 < threshold 0.70"
    cov = metrics["summary_risk_coverage"]
    # (1 + 0 + 1 + 0 + 2/3) / 5 = 0.5333 < default 0.9
    assert cov["mean_score"] == pytest.approx((1 + 0 + 1 + 0 + 2 / 3) / 5)
    assert (cov["threshold"], cov["threshold_source"], cov["is_below_threshold"]) == (0.9, "default", True)
    # non_definitive (1+0+1+1+1)/5 = 0.8 and needs_followup (1+1+0+1+1)/5 = 0.8:
    # equal to the 0.8 thresholds -> no warning
    for m in ("summary_non_definitive", "summary_needs_followup"):
        assert metrics[m]["mean_score"] == pytest.approx(0.8)
        assert (metrics[m]["pass_rate"], metrics[m]["is_below_threshold"]) == (0.8, False)
    s = wh.dicts("select * from marts.summary_set_scores where set_id = ?", [CLAIMS])[0]
    assert (s["dataset_name"], s["dataset_version"], s["n_test_cases"], s["n_scored_cases"]) == (
        "보험 상담 요약 평가",
        "1.0.0",
        7,
        5,
    )
    assert (s["n_warnings"], s["n_all_pass_cases"], s["summary_accuracy_threshold"]) == (2, 1, 0.7)
    assert s["thresholds_json"] == '{"summary_accuracy":0.7,"faithfulness":0.8}'
    bom = wh.dicts("select * from marts.summary_set_scores where set_id = ?", [BOM])[0]
    assert (bom["summary_accuracy_threshold"], bom["n_warnings"]) == (0.9, 0)  # no override


def test_review_queue_holds_the_boundary_cases(wh):
    assert wh.query(
        "select set_id, case_id, metric, review_reason, judge_status from marts.summary_review_queue order by all"
    ) == [
        (BOM, "7", "summary_needs_followup", "needs_followup_untagged", "pending"),
        (BOM, "7", "summary_risk_coverage", "risk_coverage_no_tags", "pending"),
        (CLAIMS, "tc-001", "summary_needs_followup", "needs_followup_tagged", "pending"),
        (CLAIMS, "tc-002", "summary_accuracy", "accuracy_score_in_boundary_band", "pending"),  # 1/3 in [0.3, 0.7]
        (CLAIMS, "tc-002", "summary_non_definitive", "non_definitive_rule_zero", "pending"),
        (CLAIMS, "tc-003", "summary_needs_followup", "needs_followup_untagged", "pending"),
        (CLAIMS, "tc-003", "summary_risk_coverage", "risk_coverage_no_tags", "pending"),
        (CLAIMS, "tc-004", "summary_accuracy", "accuracy_score_in_boundary_band", "pending"),  # 0.5
        (CLAIMS, "tc-005", "summary_needs_followup", "needs_followup_tagged", "pending"),
    ]


def test_every_result_carries_the_rule_snapshot_in_force(wh):
    snapshot = wh.query("select rule_snapshot from intermediate.int_summary__rule_snapshot")
    assert len(snapshot) == 1 and len(snapshot[0][0]) == 32
    assert wh.query("select distinct rule_snapshot from marts.summary_case_scores") == snapshot
    assert wh.query("select distinct rule_snapshot from marts.summary_set_scores") == snapshot


def test_judge_is_off_by_default(wh, monkeypatch, capsys):
    for name in ("AGENT_EVAL_JUDGE_BASE_URL", "AGENT_EVAL_JUDGE_MODEL", "AGENT_EVAL_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert commands.cmd_judge(cli.command_kit(), wh.paths) == cli.EXIT_OK
    assert "not configured" in capsys.readouterr().out
    assert wh.query("select count(*) from judge.summary_judgments") == [(0,)]


def test_report_per_dataset(wh):
    text = (wh.paths.reports_dir / "summary" / "2026-11-03" / "summary_claims.md").read_text(encoding="utf-8")
    assert "# 보험 요약 메트릭 리포트 — 보험 상담 요약 평가" in text
    assert (
        "| `summary_accuracy` | 요약 정확도 (엔티티 근거) | 0.567 | 0.567 | 0.70 (데이터셋) | 40.0% | ⚠️ 임계값 미달 |"
        in text
    )
    assert "| `summary_non_definitive` | 단정 표현 억제 | 0.800 | 0.800 | 0.80 | 80.0% | ✅ 통과 |" in text
    # worst cases: tc-002 (3 failed metrics) first, then tc-004 / tc-005 (2 each,
    # mean 0.625 < 0.667), then tc-003
    worst = [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| tc-")]
    assert worst == ["tc-002", "tc-004", "tc-005", "tc-003"]
    assert "test_cases[5] (id 'tc-006'): invalid_contexts" in text
    assert (wh.paths.reports_dir / "summary" / "2026-11-03" / "summary_bom.md").is_file()


def test_excel_export_writes_every_mart_with_json_as_text(wh, tmp_path):
    out = tmp_path / "summary.xlsx"
    assert (
        cli.main(
            ["export", "--db", str(wh.paths.db_path), "--out", str(out), "--project-dir", str(wh.paths.project_dir)]
        )
        == cli.EXIT_OK
    )
    book = load_workbook(out)
    assert book.sheetnames == ["set_scores", "set_metrics", "case_scores", "review_queue", "rejected_rows"]
    cases = list(book["case_scores"].iter_rows(values_only=True))
    header = cases[0]
    assert len(cases) == 1 + 6  # 5 claims cases + 1 BOM case
    tc2 = dict(zip(header, next(r for r in cases if r[header.index("case_id")] == "tc-002")))
    assert tc2["summary_non_definitive"] == 0
    assert tc2["contexts_json"].startswith('["상담원: 수술비는')
    sets = list(book["set_scores"].iter_rows(values_only=True))
    claims = dict(zip(sets[0], next(r for r in sets if r[0] == CLAIMS)))
    assert claims["thresholds_json"] == '{"summary_accuracy":0.7,"faithfulness":0.8}'
    # the build wrote the same workbook next to the reports
    assert (wh.paths.reports_dir / "summary" / summary_report.WORKBOOK).is_file()


def test_excel_values_are_safe():
    from agent_eval.agents.summary.export import EXCEL_CELL_MAX, excel_value

    assert excel_value(["면책", {"a": 1}]) == '["면책", {"a": 1}]'
    assert excel_value("a\x00b\x07c") == "abc"
    assert len(excel_value("x" * 40000)) == EXCEL_CELL_MAX


def test_formula_like_text_stays_text(tmp_path):
    import duckdb

    from agent_eval.agents.summary.export import export_summary_xlsx

    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("create schema marts; create schema ops")
        con.execute("create table marts.summary_set_scores as select 's' as set_id, '=1+1' as dataset_name")
        con.execute("create table marts.summary_set_metrics as select 's' as set_id, 1 as metric_order")
        con.execute("create table marts.summary_case_scores as select 's' as set_id, 0 as case_index, [1, 2] as xs")
        con.execute("create table marts.summary_review_queue as select 's' as set_id, 'c' as case_id, 'm' as metric")
        con.execute(
            "create table ops.rejected_rows as select 'summary' as kind, true as is_current, "
            "'s' as source_file, 1 as line_number"
        )
    book = load_workbook(export_summary_xlsx(db, tmp_path / "x.xlsx"))
    cell = book["set_scores"]["B2"]
    assert (cell.value, cell.data_type) == ("=1+1", "s")
    assert book["case_scores"]["C2"].value == "[1, 2]"  # a list column written as JSON text
