"""EvalVault run exports in the warehouse, checked against what EvalVault
itself reports.

The files in tests/fixtures/evalvault/drops were written by EvalVault 1.88.0
(scripts/fixtures/evalvault_runs.py): its rule-based summary metrics scored
the test cases, its ``export_run_to_excel`` wrote the run workbooks and its
``evalvault export`` command the JSON. Every expected figure below comes
from those files (the Summary and MetricsSummary sheets, the JSON's
pass_rate and avg_<metric>) or from tests/fixtures/evalvault/expected.json,
what EvalVault's own objects reported (EvaluationRun.pass_rate,
TestCaseResult.all_passed, MetricScore.passed); none from this warehouse.
The bad exports are made by code from the real ones."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from openpyxl import load_workbook

from agent_eval import cli
from agent_eval.viewer import create_app
from conftest import FIXTURES, IMPORTED_MOVES, IMPORTS, Warehouse

EVALVAULT = FIXTURES / "evalvault"
EXPECTED = json.loads((EVALVAULT / "expected.json").read_text(encoding="utf-8"))
FILES = EXPECTED["files"]
NIGHT_1 = "drops/2026-11-01/evalvault/insurance_summary.xlsx"
NIGHT_2 = "drops/2026-11-02/evalvault/insurance_summary.xlsx"
JSON_EXPORT = "drops/2026-11-03/evalvault/insurance_summary.json"
BAD_NIGHT = "2026-11-05"
BAD = {
    "no_sheet": f"{BAD_NIGHT}/evalvault/no_metric_scores.xlsx",
    "no_column": f"{BAD_NIGHT}/evalvault/no_threshold_column.xlsx",
    "truncated": f"{BAD_NIGHT}/evalvault/truncated.xlsx",
    "not_xlsx": f"{BAD_NIGHT}/evalvault/a_csv.xlsx",
    "json_truncated": f"{BAD_NIGHT}/evalvault/truncated.json",
    "json_no_results": f"{BAD_NIGHT}/evalvault/summary_only.json",
    "duplicates": f"{BAD_NIGHT}/evalvault/duplicates.xlsx",
    "bad_scores": f"{BAD_NIGHT}/evalvault/bad_scores.xlsx",
    "json_nan": f"{BAD_NIGHT}/evalvault/nan_score.json",
    "huge_tokens": f"{BAD_NIGHT}/evalvault/huge_tokens.xlsx",
}
# the JSON export is night 2's run; the tests deliver it before the two
# nights, so that night 2 stays the latest set of its series (history_flips)
MOVED = {JSON_EXPORT: IMPORTED_MOVES[f"evalvault/{JSON_EXPORT}"]}


def path_of(fixture_path: str) -> str:
    return MOVED.get(fixture_path) or fixture_path.removeprefix("drops/")


def sheet(path: Path, name: str) -> list[dict]:
    """A sheet's data rows as EvalVault wrote them ({column: cell})."""
    workbook = load_workbook(path, read_only=True)
    try:
        header, *rows = list(workbook[name].iter_rows(values_only=True))
    finally:
        workbook.close()
    return [dict(zip(header, row)) for row in rows]


def own_figures(fixture_path: str) -> tuple[float, dict[str, dict]]:
    """The run's pass rate and each metric's figures as EvalVault wrote
    them in the file: the Summary and MetricsSummary sheets, or the JSON's
    pass_rate and avg_<metric>."""
    path = EVALVAULT / fixture_path
    if path.suffix == ".json":
        document = json.loads(path.read_text(encoding="utf-8"))
        return document["pass_rate"], {
            name: {"avg_score": document[f"avg_{name}"]} for name in document["metrics_evaluated"]
        }
    [summary] = sheet(path, "Summary")
    return summary["pass_rate"], {row["metric_name"]: row for row in sheet(path, "MetricsSummary")}


def write_bad_exports(drops: Path) -> None:
    folder = drops / BAD_NIGHT / "evalvault"
    folder.mkdir(parents=True)
    source = EVALVAULT / NIGHT_1

    def variant(name: str, dataset: str):
        """Night 1's workbook as openpyxl opens it, under a dataset name of
        its own (a series of its own)."""
        workbook = load_workbook(source)
        for title in ("Summary", "Run"):
            ws = workbook[title]
            column = [c.value for c in ws[1]].index("dataset_name") + 1
            ws.cell(2, column).value = dataset
        return workbook, drops / BAD[name]

    workbook, target = variant("no_sheet", "bad: no sheet")
    del workbook["MetricScores"]
    workbook.save(target)
    workbook, target = variant("no_column", "bad: no column")
    workbook["MetricScores"].cell(1, 5).value = "thresh"  # result_id, test_case_id, metric_name, score, threshold
    workbook.save(target)
    data = source.read_bytes()
    (drops / BAD["truncated"]).write_bytes(data[: len(data) // 2])
    (drops / BAD["not_xlsx"]).write_text("run_id,pass_rate\nabc,0.5\n", encoding="utf-8")
    text = (EVALVAULT / JSON_EXPORT).read_text(encoding="utf-8")
    (drops / BAD["json_truncated"]).write_text(text[: len(text) // 2], encoding="utf-8")
    document = json.loads(text)
    summary_only = {k: v for k, v in document.items() if k != "results"}
    summary_only["dataset_name"] = "bad: no results"
    (drops / BAD["json_no_results"]).write_text(json.dumps(summary_only), encoding="utf-8")

    # a test case twice (TestCases row 9 repeats row 2), a score twice, a
    # score of a test case the workbook does not have
    workbook, target = variant("duplicates", "bad: duplicates")
    cases, scores = workbook["TestCases"], workbook["MetricScores"]
    cases.append([c.value for c in cases[2]])
    scores.append([c.value for c in scores[2]])
    scores.append([999, "ins-999", "summary_accuracy", 0.5, 0.9, None])
    workbook.save(target)

    # an empty score (EvalVault's workbook writes a NaN score so) and a text
    # score, both of test cases that fail already on night 1 (ins-002,
    # ins-005): the run's pass rate stays EvalVault's
    workbook, target = variant("bad_scores", "bad: scores")
    scores = workbook["MetricScores"]
    header = [c.value for c in scores[1]]
    for row in scores.iter_rows(min_row=2):
        values = dict(zip(header, (c.value for c in row)))
        if (values["test_case_id"], values["metric_name"]) == ("ins-002", "summary_accuracy"):
            row[header.index("score")].value = None
        if (values["test_case_id"], values["metric_name"]) == ("ins-005", "summary_risk_coverage"):
            row[header.index("score")].value = "high"
    workbook.save(target)

    # counts past any bigint: the first test case's tokens, the run's
    # total, the first metric's samples
    workbook, target = variant("huge_tokens", "odd: tokens 1e30")
    for title, column in (("TestCases", "tokens_used"), ("Summary", "total_test_cases"), ("MetricsSummary", "samples")):
        ws = workbook[title]
        ws.cell(2, [c.value for c in ws[1]].index(column) + 1).value = 1e30
    workbook.save(target)

    nan = json.loads(text)
    nan["dataset_name"] = "bad: NaN"
    nan["results"][3]["metrics"][0]["score"] = float("nan")  # json writes a bare NaN token
    (drops / BAD["json_nan"]).write_text(json.dumps(nan), encoding="utf-8")


@pytest.fixture(scope="module")
def night(module_built):
    """The bad exports, a night after every imported tool's good fixtures."""
    wh, _ = module_built(IMPORTS)
    write_bad_exports(wh.drops)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = wh.build()
    return wh, code, err.getvalue()


def figure(wh: Warehouse, set_id: str, scorer: str, metric: str) -> tuple:
    [row] = wh.query(
        "select value, tool_reported_value, agrees_with_tool, n_samples from marts.eval_set_scores "
        "where set_id = ? and scorer = ? and metric = ?",
        [set_id, scorer, metric],
    )
    return row


def test_the_fixtures_are_what_evalvault_wrote():
    assert EXPECTED["evalvault_version"] == "1.88.0"
    workbook = load_workbook(EVALVAULT / NIGHT_1, read_only=True)
    try:
        assert workbook.sheetnames[:5] == ["Summary", "Run", "TestCases", "MetricScores", "MetricsSummary"]
    finally:
        workbook.close()
    [run] = sheet(EVALVAULT / NIGHT_1, "Run")
    assert json.loads(run["thresholds"]) == FILES[NIGHT_1]["thresholds"]
    document = json.loads((EVALVAULT / JSON_EXPORT).read_text(encoding="utf-8"))
    assert document["run_id"] == FILES[NIGHT_2]["run_id"]  # the JSON is night 2's run
    assert {"results", "pass_rate", "thresholds"} <= document.keys()


@pytest.mark.parametrize("path", [NIGHT_1, NIGHT_2, JSON_EXPORT])
def test_each_run_figure_equals_evalvaults_own(imported_warehouse, path):
    wh = imported_warehouse
    set_id = path_of(path)
    facts = FILES[path]
    pass_rate, metrics = own_figures(path)
    value, reported, agrees, n = figure(wh, set_id, "overall", "pass_rate")
    # EvaluationRun.pass_rate: test cases passing every metric / test cases
    assert value == pytest.approx(facts["passed_test_cases"] / facts["total_test_cases"], abs=1e-12)
    assert value == pytest.approx(facts["pass_rate"], abs=1e-12)
    assert reported == pytest.approx(pass_rate, abs=1e-12) and agrees is True
    assert n == facts["total_test_cases"]
    assert set(metrics) == set(facts["metrics_evaluated"])
    for name, own in metrics.items():
        value, reported, agrees, n = figure(wh, set_id, name, "mean")
        assert value == pytest.approx(facts["avg_score"][name], abs=1e-9), name
        assert reported == pytest.approx(own["avg_score"], abs=1e-12) and agrees is True
        value, reported, agrees, n = figure(wh, set_id, name, "pass_rate")
        if path == JSON_EXPORT:  # the JSON reports no pass rate per metric
            assert reported is None and agrees is None
        else:
            assert reported == pytest.approx(own["pass_rate"], abs=1e-12) and agrees is True
            assert value == pytest.approx(own["pass_rate"], abs=1e-9) and n == own["samples"]
    [run] = wh.dicts("select * from marts.evalvault_runs where set_id = ?", [set_id])
    assert run["run_id"] == facts["run_id"]
    assert run["series_id"] == f"evalvault:{facts['dataset_name']}:{facts['model_name']}"
    assert (run["task"], run["model"], run["dataset_version"]) == (
        facts["dataset_name"],
        facts["model_name"],
        facts["dataset_version"],
    )
    assert (run["n_samples"], run["n_passed"], run["n_scores"]) == (
        facts["total_test_cases"],
        facts["passed_test_cases"],
        facts["total_test_cases"] * len(facts["metrics_evaluated"]),
    )
    assert run["export_format"] == path.rsplit(".", 1)[1] and run["is_complete"] is True
    assert json.loads(run["thresholds"]) == facts["thresholds"]


@pytest.mark.parametrize("path", [NIGHT_1, NIGHT_2, JSON_EXPORT])
def test_every_score_is_judged_by_the_runs_threshold(imported_warehouse, path):
    wh = imported_warehouse
    rows = wh.dicts("select * from marts.evalvault_item_scores where set_id = ?", [path_of(path)])
    found = {(r["sample_id"], r["scorer"]): r for r in rows}
    cases = FILES[path]["test_cases"]
    assert len(rows) == len(cases) * (1 + len(FILES[path]["metrics_evaluated"]))
    for case_id, case in cases.items():
        overall = found[(case_id, "overall")]
        assert overall["is_pass"] is case["all_passed"], case_id
        assert overall["value"] == (1.0 if case["all_passed"] else 0.0)
        assert overall["latency_sec"] == pytest.approx(case["latency_ms"] / 1000)
        assert overall["tokens_used"] == case["tokens_used"]
        for name, score in case["metrics"].items():
            row = found[(case_id, name)]
            assert row["value"] == pytest.approx(score["score"], abs=1e-12)
            assert row["threshold"] == score["threshold"] == FILES[path]["thresholds"][name]
            assert row["is_pass"] is score["passed"], (case_id, name)  # MetricScore.passed
            assert row["epoch"] == 1
            if path == JSON_EXPORT:  # EvalVault's own verdicts ride along
                assert row["tool_is_pass"] is score["passed"] and row["agrees_with_tool"] is True
            else:
                assert row["tool_is_pass"] is None and row["agrees_with_tool"] is None
        if path == JSON_EXPORT:
            assert overall["tool_is_pass"] is case["all_passed"] and overall["agrees_with_tool"] is True
        else:
            assert overall["input"] and overall["answer"]  # the workbook carries the test case
    # a score exactly at its threshold passes (>=)
    boundary = found[("ins-003", "summary_accuracy")]
    assert boundary["value"] == boundary["threshold"] == 0.9 and boundary["is_pass"] is True


def test_every_field_read_is_the_workbooks(imported_warehouse):
    wh = imported_warehouse
    path = EVALVAULT / NIGHT_1
    [summary], [run_row] = sheet(path, "Summary"), sheet(path, "Run")
    [run] = wh.dicts("select * from marts.evalvault_runs where set_id = ?", [path_of(NIGHT_1)])
    assert run["started_at"].replace(tzinfo=None).isoformat() == run_row["started_at"]
    assert run["finished_at"].replace(tzinfo=None).isoformat() == run_row["finished_at"]
    assert run["created_at"] == run["started_at"] and run["status"] == "success"
    assert json.loads(run["metrics_evaluated"]) == json.loads(run_row["metrics_evaluated"])
    assert (run["reported_total_test_cases"], run["reported_total_tokens"], run["reported_total_cost"]) == (
        summary["total_test_cases"],
        summary["total_tokens"],
        summary["total_cost_usd"],
    )
    assert run["total_tokens"] == summary["total_tokens"] and run["total_cost"] == summary["total_cost_usd"]
    items = {
        (r["sample_id"], r["scorer"]): r
        for r in wh.dicts("select * from marts.evalvault_item_scores where set_id = ?", [path_of(NIGHT_1)])
    }
    for case in sheet(path, "TestCases"):
        row = items[(case["test_case_id"], "overall")]
        assert (row["input"], row["answer"], row["target"]) == (case["question"], case["answer"], case["ground_truth"])
        assert row["contexts_json"] == case["contexts"] and row["result_id"] == str(case["id"])
        assert row["total_cost"] == case["cost_usd"] and row["value_raw"] is None  # no verdict in the workbook
    for score in sheet(path, "MetricScores"):
        row = items[(score["test_case_id"], score["metric_name"])]
        assert row["value_raw"] == str(score["score"]) and row["score_threshold"] == score["threshold"]
        assert row["explanation"] == score["reason"]
        assert row["record_location"].startswith("MetricScores row ")
    # the JSON keeps EvalVault's verdict of each test case as written
    json_rows = wh.query(
        "select sample_id, value_raw from marts.evalvault_item_scores where set_id = ? and scorer = 'overall'",
        [path_of(JSON_EXPORT)],
    )
    cases = FILES[JSON_EXPORT]["test_cases"]
    assert dict(json_rows) == {case_id: str(case["all_passed"]).lower() for case_id, case in cases.items()}


def test_the_json_export_scores_as_the_workbook_of_the_same_run(imported_warehouse):
    wh = imported_warehouse
    query = (
        "select sample_id, scorer, value, is_pass, threshold from marts.evalvault_item_scores "
        "where set_id = ? order by sample_id, scorer"
    )
    assert wh.query(query, [path_of(JSON_EXPORT)]) == wh.query(query, [path_of(NIGHT_2)])


def test_flips_between_the_two_nights_pair_each_test_case(imported_warehouse):
    wh = imported_warehouse
    before, after = FILES[NIGHT_1]["test_cases"], FILES[NIGHT_2]["test_cases"]
    expected = {
        case_id: ("pass_to_fail" if before[case_id]["all_passed"] else "fail_to_pass")
        for case_id in before
        if before[case_id]["all_passed"] != after[case_id]["all_passed"]
    }
    assert set(expected.values()) == {"pass_to_fail", "fail_to_pass"}  # the nights differ both ways
    got = dict(
        wh.query(
            "select query_id, transition from marts.history_flips where set_id = ? "
            "and transition in ('pass_to_fail', 'fail_to_pass')",
            [path_of(NIGHT_2)],
        )
    )
    assert got == expected
    [(baseline,)] = wh.query(
        "select baseline_set_id from marts.history_flips where set_id = ? limit 1", [path_of(NIGHT_2)]
    )
    assert baseline == path_of(NIGHT_1)


def n_records(fixture_path: str) -> int:
    """Test cases plus scores, as EvalVault wrote them."""
    path = EVALVAULT / fixture_path
    if path.suffix == ".json":
        results = json.loads(path.read_text(encoding="utf-8"))["results"]
        return len(results) + sum(len(r["metrics"]) for r in results)
    return len(sheet(path, "TestCases")) + len(sheet(path, "MetricScores"))


def test_records_reconcile_test_cases_and_scores_scored_plus_rejected(night):
    wh, _, _ = night
    rows = {r["source_file"]: r for r in wh.dicts("select * from ops.file_reconciliation where kind = 'evalvault_run'")}
    for path in FILES:
        r = rows[path_of(path)]
        assert r["n_raw_rows"] == n_records(path) == r["n_scored_rows"] + r["n_rejected_rows"]
        assert r["n_rejected_rows"] == 0
    expected_rejections = {BAD["duplicates"]: 3, BAD["bad_scores"]: 2, BAD["json_nan"]: 1}
    for path, n_rejected in expected_rejections.items():
        r = rows[path]
        assert r["n_rejected_rows"] == n_rejected
        assert r["n_raw_rows"] == r["n_scored_rows"] + n_rejected
    assert rows[BAD["duplicates"]]["n_raw_rows"] == n_records(NIGHT_1) + 3


def test_each_bad_export_is_a_clear_rejection_and_nothing_else_stops(night):
    wh, code, err = night
    assert code == cli.EXIT_REJECTED
    files = dict(wh.query("select source_file, reject_reason from ops.rejected_files where is_latest"))
    assert files[BAD["no_sheet"]].startswith("not an EvalVault run export: no sheet(s) MetricScores")
    assert files[BAD["no_column"]].startswith("sheet MetricScores: missing column(s): threshold")
    assert files[BAD["truncated"]].startswith("not a readable xlsx workbook")
    assert files[BAD["not_xlsx"]].startswith("not a readable xlsx workbook")
    assert files[BAD["json_truncated"]].startswith("not valid JSON")
    assert "no 'results' list" in files[BAD["json_no_results"]]
    for path in (BAD["no_sheet"], BAD["no_column"], BAD["truncated"]):
        assert path in err
    rows = {}
    for r in wh.dicts("select * from ops.rejected_rows where is_current and kind = 'evalvault_run'"):
        rows.setdefault((r["source_file"], r["reason"]), []).append(r["reason_detail"])
    n_cases = len(FILES[NIGHT_1]["test_cases"])
    [repeated] = rows[(BAD["duplicates"], "duplicate_test_case")]
    assert f"TestCases row {n_cases + 2}: test case 'ins-001' again (also TestCases row 2)" in repeated
    [twice] = rows[(BAD["duplicates"], "duplicate_score")]
    assert "test case 'ins-001' metric 'summary_accuracy' again (also MetricScores row 2)" in twice
    [unknown] = rows[(BAD["duplicates"], "unknown_test_case")]
    assert "test case 'ins-999' has no test case record" in unknown
    empty, text = sorted(rows[(BAD["bad_scores"], "invalid_score")], key=lambda reason: "text" in reason)
    assert empty.startswith("invalid_score: MetricScores row ") and "score is empty" in empty
    assert "score is the text 'high', not a number" in text
    [nan] = rows[(BAD["json_nan"], "invalid_score")]
    assert "results[3].metrics[0]: score is NaN, not a finite number" in nan
    # every good export is published, and the rest of each export with a bad record
    published = {r[0] for r in wh.query("select source_file from marts.evalvault_runs")}
    assert {path_of(p) for p in FILES} | {BAD["duplicates"], BAD["bad_scores"], BAD["json_nan"]} <= published


def test_a_rejected_score_keeps_its_test_case_from_passing(night):
    wh, _, err = night
    # ins-004 passes every metric but one on night 2; its NaN score makes
    # it fail whatever the rest say (NaN >= threshold is false in EvalVault)
    [(is_pass, explanation)] = wh.query(
        "select is_pass, explanation from marts.evalvault_item_scores "
        "where set_id = ? and sample_id = 'ins-004' and scorer = 'overall'",
        [BAD["json_nan"]],
    )
    assert is_pass is False and "score rejected: summary_accuracy" in explanation
    # the run's pass rate is EvalVault's still (ins-002 and ins-005 fail anyway) ...
    _, reported, agrees, _ = figure(wh, BAD["bad_scores"], "overall", "pass_rate")
    assert agrees is True and reported == pytest.approx(FILES[NIGHT_1]["pass_rate"], abs=1e-12)
    # ... and a mean over the scores left is not: a verdict on the night, named
    _, reported, agrees, n = figure(wh, BAD["bad_scores"], "summary_accuracy", "mean")
    assert n == len(FILES[NIGHT_1]["test_cases"]) - 1 and agrees is False
    assert any(BAD["bad_scores"] in line and "summary_accuracy mean" in line for line in err.splitlines())


def test_a_token_count_past_any_bigint_is_no_count_and_the_run_is_scored(night):
    """A count of 1e30 (a test case's tokens_used, the Summary's
    total_test_cases, a metric's samples) is no count a bigint holds: it is
    none, the others keep theirs, and the run is scored."""
    wh, _ = night[:2]
    cases = sheet(EVALVAULT / NIGHT_1, "TestCases")
    found = dict(
        wh.query(
            "select sample_id, tokens_used from marts.evalvault_item_scores where set_id = ? and scorer = 'overall'",
            [BAD["huge_tokens"]],
        )
    )
    assert found == {
        case["test_case_id"]: (None if index == 0 else case["tokens_used"]) for index, case in enumerate(cases)
    }
    reported = wh.query(
        "select reported_total_test_cases from marts.evalvault_runs where set_id = ?", [BAD["huge_tokens"]]
    )
    assert reported == [(None,)]
    metric = sheet(EVALVAULT / NIGHT_1, "MetricsSummary")[0]["metric_name"]
    counts = wh.query(
        "select tool_reported_n from marts.evalvault_set_scores where set_id = ? and scorer = ? and metric = 'mean'",
        [BAD["huge_tokens"], metric],
    )
    assert counts == [(None,)]


def test_reports_and_the_viewer_show_each_run(imported_warehouse):
    wh = imported_warehouse
    assert (wh.paths.reports_dir / "evalvault" / "2026-11-02" / "evalvault" / "insurance_summary.md").exists()
    client = create_app(wh.paths.published_db).test_client()
    set_id = path_of(NIGHT_2)
    failing = [
        r[0]
        for r in wh.query(
            "select sample_id from marts.eval_item_scores where set_id = ? and scorer = 'overall' and not is_pass",
            [set_id],
        )
    ]
    page = client.get("/set", query_string={"id": set_id, "scorer": "overall", "result": "fail"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "evalvault reported" in text
    assert text.count("</td><td>overall</td>") == len(failing) > 0
    item = client.get("/set", query_string={"id": set_id, "sample": "ins-003", "epoch": 1})
    assert item.status_code == 200 and "summary_accuracy" in item.get_data(as_text=True)
