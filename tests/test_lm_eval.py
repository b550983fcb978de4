"""lm-evaluation-harness outputs in the warehouse, checked against what
lm-eval itself reports.

The files in tests/fixtures/lm_eval/drops were written by lm-eval 0.4.13's
own command line (scripts/fixtures/lm_eval_outputs.py: a deterministic
model, two local tasks). Every expected figure below is read from them:
a task's figures from its results file (results[task]["<metric>,<filter>"],
its "_stderr" twin, lm-eval's mean and mean_stderr), each document's value
from its samples file; none from this warehouse. The bad deliveries are
made by code from the real files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_eval import cli
from agent_eval.viewer import create_app
from conftest import FIXTURES, Warehouse

LM_EVAL = FIXTURES / "lm_eval"
DROPS = LM_EVAL / "drops"
RESULTS = sorted(p.relative_to(DROPS).as_posix() for p in DROPS.rglob("results_*.json"))
NIGHT_1 = next(p for p in RESULTS if p.startswith("2026-11-01/lm_eval/acme__korean-7b/"))
NIGHT_2 = next(p for p in RESULTS if p.startswith("2026-11-02/lm_eval/acme__korean-7b/"))
SECOND_MODEL = next(p for p in RESULTS if p.startswith("2026-11-02/lm_eval/acme__korean-1b/"))
BAD_NIGHT = "2026-11-05"
# lm-eval aggregates these by mean (their configs' metric_list says so); bleu is a corpus metric
MEAN_METRICS = {"acc", "acc_norm", "exact_match"}


def document(path: str) -> dict:
    return json.loads((DROPS / path).read_text(encoding="utf-8"))


def datetime_of(results_path: str) -> str:
    return Path(results_path).stem.removeprefix("results_")


def samples_path(results_path: str, task: str) -> str:
    folder = results_path.rsplit("/", 1)[0]
    return f"{folder}/samples_{task}_{datetime_of(results_path)}.jsonl"


def lines(path: str) -> list[dict]:
    return [json.loads(line) for line in (DROPS / path).read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- bad deliveries


def bad_folder(case: str) -> str:
    return f"{BAD_NIGHT}/lm_eval/{case}"


def run_file(case: str) -> str:
    return f"{bad_folder(case)}/{Path(NIGHT_1).name}"


def copy_run(drops: Path, case: str, *, tasks=("ko_quiz", "ko_arith"), edit=None, results=True) -> str:
    """Night 1's run copied to <BAD_NIGHT>/lm_eval/<case>/ under a model
    name of its own (a series of its own, and bytes of its own: the same
    results bytes at another path would be a repeat), ``edit`` applied to
    the results document; the samples files of ``tasks`` beside it."""
    folder = drops / bad_folder(case)
    folder.mkdir(parents=True)
    name = Path(NIGHT_1).name
    if results:
        doc = document(NIGHT_1)
        doc["model_name"] = f"bad/{case}"
        doc["config"]["model_args"] = {"pretrained": f"bad/{case}"}
        if edit is not None:
            edit(doc)
        (folder / name).write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    for task in tasks:
        source = samples_path(NIGHT_1, task)
        shutil.copyfile(DROPS / source, folder / Path(source).name)
    return run_file(case)


def write_bad_deliveries(drops: Path) -> dict[str, str]:
    bad = {}

    def no_results(doc):
        del doc["results"]

    def old_version(doc):
        doc["lm_eval_version"] = "0.3.0"

    def old_structure(doc):  # lm-eval 0.3: figures without a filter
        doc["results"] = {"ko_quiz": {"acc": 0.75, "acc_stderr": 0.16}, "ko_arith": {"exact_match": 0.5}}

    def nan_figure(doc):
        doc["results"]["ko_arith"]["exact_match,strict-match"] = float("nan")  # json writes a bare NaN

    def with_group(doc):
        doc["results"]["ko_suite"] = {"alias": "ko_suite", "acc,none": 0.75, "acc_stderr,none": 0.16}
        doc["groups"] = {"ko_suite": doc["results"]["ko_suite"]}
        doc["group_subtasks"] = {"ko_suite": ["ko_quiz", "ko_arith"]}

    bad["no_results"] = copy_run(drops, "no_results", edit=no_results)
    bad["version"] = copy_run(drops, "version", edit=old_version, tasks=())
    bad["structure"] = copy_run(drops, "structure", edit=old_structure, tasks=())
    truncated = copy_run(drops, "truncated", tasks=())
    text = (drops / truncated).read_text(encoding="utf-8")
    (drops / truncated).write_text(text[: len(text) // 2], encoding="utf-8")
    bad["truncated"] = truncated
    bad["nan_figure"] = copy_run(drops, "nan_figure", edit=nan_figure)
    bad["group"] = copy_run(drops, "group", edit=with_group)

    def absurd_date(doc):  # epoch seconds past any timestamp
        doc["date"] = 1e30

    bad["absurd_date"] = copy_run(drops, "absurd_date", edit=absurd_date)
    bad["missing_samples"] = copy_run(drops, "missing_samples", tasks=("ko_quiz",))
    copy_run(drops, "orphan_samples", tasks=("ko_quiz",), results=False)
    bad["orphan_samples"] = f"{bad_folder('orphan_samples')}/{Path(samples_path(NIGHT_1, 'ko_quiz')).name}"
    # bad lines in a samples file: cut short, a duplicate, NaN, text
    bad["bad_lines"] = copy_run(drops, "bad_lines")
    quiz = drops / bad_folder("bad_lines") / Path(samples_path(NIGHT_1, "ko_quiz")).name
    raw = quiz.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in raw]
    raw[2] = raw[2][:50]  # line 3: not JSON
    rows[3]["acc"] = float("nan")  # line 4
    raw[3] = json.dumps(rows[3], ensure_ascii=False)
    rows[5]["acc_norm"] = "yes"  # line 6
    raw[5] = json.dumps(rows[5], ensure_ascii=False)
    raw.append(raw[1])  # line 9: doc_id 1 filter none again
    quiz.write_text("\n".join(raw) + "\n", encoding="utf-8")
    bad["bad_lines_samples"] = quiz.relative_to(drops).as_posix()
    return bad


# the cases whose results file write_bad_deliveries writes
BAD_RUNS = (
    *("no_results", "version", "structure", "truncated", "nan_figure", "group", "missing_samples", "bad_lines"),
    "absurd_date",
)


def bad_deliveries() -> dict[str, str]:
    """The paths write_bad_deliveries writes, by case."""
    bad = {case: run_file(case) for case in BAD_RUNS}
    bad["orphan_samples"] = f"{bad_folder('orphan_samples')}/{Path(samples_path(NIGHT_1, 'ko_quiz')).name}"
    bad["bad_lines_samples"] = f"{bad_folder('bad_lines')}/{Path(samples_path(NIGHT_1, 'ko_quiz')).name}"
    return bad


def write_hostile_night(drops: Path) -> None:
    """This module's files of the session's hostile night (conftest,
    ``hostile_imports``)."""
    assert write_bad_deliveries(drops) == bad_deliveries()


def deliver_early(drops: Path) -> None:
    """A run whose ko_arith samples file comes a night later (conftest,
    ``late_deliveries``)."""
    copy_run(drops, "late", tasks=("ko_quiz",))


def deliver_late(drops: Path) -> None:
    late = samples_path(NIGHT_1, "ko_arith")
    shutil.copyfile(DROPS / late, drops / bad_folder("late") / Path(late).name)


@pytest.fixture(scope="module")
def night(hostile_imports):
    """The bad deliveries, a night after every imported tool's good
    fixtures: the session's hostile night, beside the other import
    modules' bad files."""
    return hostile_imports.wh, hostile_imports.wh.exit_code, hostile_imports.err, bad_deliveries()


def figure(wh: Warehouse, set_id: str, scorer: str, metric: str) -> tuple:
    [row] = wh.query(
        "select value, tool_reported_value, agrees_with_tool from marts.eval_set_scores "
        "where set_id = ? and scorer = ? and metric = ?",
        [set_id, scorer, metric],
    )
    return row


# ---------------------------------------------------------------- the fixtures


def test_the_fixtures_are_what_lm_eval_wrote():
    assert len(RESULTS) == 3
    for path in RESULTS:
        doc = document(path)
        assert doc["lm_eval_version"] == "0.4.13"
        assert set(doc["results"]) == set(doc["configs"]) == {"ko_quiz", "ko_arith"}
        assert path.split("/")[2] == doc["model_name_sanitized"]  # lm-eval's folder per model
        for task in doc["results"]:
            assert (DROPS / samples_path(path, task)).is_file()  # one per task, same <datetime>
        keys = set(doc["results"]["ko_arith"])
        assert {"exact_match,strict-match", "exact_match,flexible-extract", "bleu,strict-match"} <= keys
    quiz = lines(samples_path(NIGHT_1, "ko_quiz"))
    assert any("수도" in line["doc"]["question"] for line in quiz)  # Korean documents
    assert {line["filter"] for line in lines(samples_path(NIGHT_1, "ko_arith"))} == {
        "strict-match",
        "flexible-extract",
    }
    # the nights differ both ways, and acc_norm is not acc on night 2
    night_2 = document(NIGHT_2)["results"]["ko_quiz"]
    assert night_2["acc,none"] != night_2["acc_norm,none"]


# ---------------------------------------------------------------- figures


@pytest.mark.parametrize("path", RESULTS)
def test_each_figure_equals_lm_evals_own(imported_warehouse, path):
    wh = imported_warehouse
    doc = document(path)
    checked = 0
    for task, entry in doc["results"].items():
        set_id = f"{path}#{task}"
        for key, reported in entry.items():
            if "," not in key or "_stderr," in key:
                continue
            metric, _, filter_name = key.partition(",")
            stderr = entry[f"{metric}_stderr,{filter_name}"]
            if metric in MEAN_METRICS:
                value, tool, agrees = figure(wh, set_id, key, "mean")
                assert value == pytest.approx(reported, abs=1e-9) and tool == reported and agrees is True
                value, tool, agrees = figure(wh, set_id, key, "stderr")
                assert value == pytest.approx(stderr, abs=1e-9) and tool == stderr and agrees is True
            else:  # bleu: a corpus metric, lm-eval's figure kept, none computed here
                value, tool, agrees = figure(wh, set_id, key, metric)
                assert value is None and tool == reported and agrees is None
                value, tool, agrees = figure(wh, set_id, key, "stderr")
                assert value is None and tool == stderr and agrees is None
            checked += 1
        [(n_samples, n_effective)] = wh.query(
            "select n_samples, n_docs_effective from marts.lm_eval_runs where set_id = ?", [set_id]
        )
        assert n_samples == n_effective == doc["n-samples"][task]["effective"]
    assert checked == 2 + 4  # acc, acc_norm; exact_match and bleu under two filters


def test_each_document_keeps_lm_evals_value_per_metric_and_filter(imported_warehouse):
    wh = imported_warehouse
    for path in RESULTS:
        for task in ("ko_quiz", "ko_arith"):
            got = {
                (r["sample_id"], r["scorer"]): r
                for r in wh.dicts(
                    "select sample_id, scorer, value_raw, value, is_pass, target, input from marts.eval_item_scores "
                    "where set_id = ?",
                    [f"{path}#{task}"],
                )
            }
            expected = lines(samples_path(path, task))
            assert len(got) == sum(len(line["metrics"]) for line in expected)
            for line in expected:
                for metric in line["metrics"]:
                    row = got[(str(line["doc_id"]), f"{metric},{line['filter']}")]
                    assert row["target"] == line["target"]
                    assert row["input"] == line["arguments"]["gen_args_0"]["arg_0"]
                    if metric in MEAN_METRICS:
                        assert row["value"] == line[metric] and row["is_pass"] is (line[metric] == 1)
                    else:
                        assert row["value"] is None and json.loads(row["value_raw"]) == line[metric]
                        assert row["is_pass"] is None


def test_a_set_is_a_task_of_a_results_file_in_its_series(imported_warehouse):
    wh = imported_warehouse
    rows = wh.dicts(
        "select set_id, series_id, task, model, headline_scorer, source_file, samples_file, run_id "
        "from marts.lm_eval_runs where set_id not like ?",
        [f"{BAD_NIGHT}%"],
    )
    assert len(rows) == 6
    for r in rows:
        assert r["set_id"] == f"{r['source_file']}#{r['task']}"
        assert r["samples_file"] == samples_path(r["source_file"], r["task"])
        assert r["run_id"] == datetime_of(r["source_file"])
        assert r["model"] == document(r["source_file"])["model_name"]
        assert r["series_id"] == f"lm_eval:{r['task']}:{r['model']}"
        assert r["headline_scorer"] == ("acc,none" if r["task"] == "ko_quiz" else "exact_match,strict-match")
    series = dict(
        wh.query(
            "select series_id, count(*) from marts.history_set_metrics where agent = 'lm_eval' "
            "and metric = 'acc,none' and set_id not like ? group by 1",
            [f"{BAD_NIGHT}%"],
        )
    )
    assert series == {"lm_eval:ko_quiz:acme/korean-7b": 2, "lm_eval:ko_quiz:acme/korean-1b": 1}


def test_flips_between_the_two_nights_pair_each_document(imported_warehouse):
    wh = imported_warehouse
    for task, headline in (("ko_quiz", "acc"), ("ko_arith", "exact_match")):
        scorer_filter = "none" if task == "ko_quiz" else "strict-match"

        def outcomes(path, task=task, headline=headline, scorer_filter=scorer_filter):
            return {
                str(line["doc_id"]): line[headline] == 1
                for line in lines(samples_path(path, task))
                if line["filter"] == scorer_filter
            }

        before, after = outcomes(NIGHT_1), outcomes(NIGHT_2)
        expected = {
            doc: ("pass_to_fail" if before[doc] else "fail_to_pass") for doc in before if before[doc] != after[doc]
        }
        assert expected  # the fixture's nights differ
        got = dict(
            wh.query(
                "select query_id, transition from marts.history_flips where set_id = ? "
                "and transition in ('pass_to_fail', 'fail_to_pass')",
                [f"{NIGHT_2}#{task}"],
            )
        )
        assert got == expected
    transitions = wh.query("select distinct transition from marts.history_flips where set_id like ?", [f"{NIGHT_2}%"])
    assert {"pass_to_fail", "fail_to_pass"} <= {t for (t,) in transitions}


# ---------------------------------------------------------------- bad input


def test_records_reconcile_scored_plus_rejected(night):
    wh, _, _, bad = night
    rows = {
        r["source_file"]: r
        for r in wh.dicts("select * from ops.file_reconciliation where kind in ('lm_eval_results', 'lm_eval_samples')")
    }
    for path in RESULTS:
        r = rows[path]
        assert r["n_raw_rows"] == r["n_scored_rows"] == 2 and r["n_rejected_rows"] == 0
        for task in ("ko_quiz", "ko_arith"):
            r = rows[samples_path(path, task)]
            assert r["n_raw_rows"] == len(lines(samples_path(path, task))) == r["n_scored_rows"]
    for r in rows.values():
        assert r["n_raw_rows"] == r["n_data_records"] == r["n_valid_rows"] + r["n_rejected_rows"]
        if r["is_current"]:
            assert r["n_scored_rows"] == r["n_valid_rows"], r["source_file"]
    assert rows[bad["bad_lines_samples"]]["n_rejected_rows"] == 4
    assert rows[bad["missing_samples"]]["n_rejected_rows"] == 1  # its ko_arith task


def test_each_bad_delivery_is_a_clear_rejection_and_nothing_else_stops(night):
    wh, code, err, bad = night
    assert code == cli.EXIT_REJECTED
    files = dict(wh.query("select source_file, reject_reason from ops.rejected_files where is_latest"))
    assert "no 'results' object" in files[bad["no_results"]]
    assert files[bad["version"]].startswith("unknown lm-eval version '0.3.0'")
    assert files[bad["structure"]].startswith("unknown structure") and "'acc'" in files[bad["structure"]]
    assert files[bad["truncated"]].startswith("not valid JSON")
    for case in ("no_results", "version", "truncated"):
        assert bad[case] in err
    rows = {}
    for r in wh.dicts("select * from ops.rejected_rows where is_current and kind like 'lm_eval%'"):
        rows.setdefault(r["source_file"], []).append(r)

    def reasons(path):
        return sorted((r["line_number"], r["reason"], r["reason_detail"]) for r in rows.get(path, []))

    # a results file whose samples file is missing: that task is rejected, the other is a set
    [(line, reason, detail)] = reasons(bad["missing_samples"])
    assert reason == "missing_samples_file" and "samples_ko_arith_" in detail and line == 2
    # a samples file whose results file is missing (or rejected whole): every line rejected
    orphan = reasons(bad["orphan_samples"])
    assert len(orphan) == 8 and {r for _, r, _ in orphan} == {"missing_results_file"}
    assert "no results file of datetime" in orphan[0][2]
    quiz_of_rejected = f"{bad_folder('no_results')}/{Path(samples_path(NIGHT_1, 'ko_quiz')).name}"
    assert {r for _, r, _ in reasons(quiz_of_rejected)} == {"missing_results_file"}
    # a NaN figure rejects its task; the task's samples are no set, and say why
    [(line, reason, detail)] = reasons(bad["nan_figure"])
    assert reason == "invalid_metric" and "exact_match,strict-match" in detail and "NaN" in detail
    arith_of_nan = f"{bad_folder('nan_figure')}/{Path(samples_path(NIGHT_1, 'ko_arith')).name}"
    assert {d.split(" was rejected")[0] for _, _, d in reasons(arith_of_nan)} == {
        f"missing_results_file: task 'ko_arith' of {bad['nan_figure']}"
    }
    # bad lines: each its own reason, naming the line
    found = reasons(bad["bad_lines_samples"])
    assert [(line, reason) for line, reason, _ in found] == [
        (3, "invalid_json"),
        (4, "invalid_metric"),
        (6, "invalid_metric"),
        (9, "duplicate_sample"),
    ]
    assert "line 4: acc is NaN" in found[1][2]
    assert "line 6: acc_norm is 'yes', not a number" in found[2][2]
    assert "doc_id 1 filter 'none' again (also line 2)" in found[3][2]
    # the sets that are whole are built: the other task of each run, and the rest of a file with bad lines
    sets = {r[0] for r in wh.query("select set_id from marts.lm_eval_runs")}
    assert f"{bad['missing_samples']}#ko_quiz" in sets and f"{bad['missing_samples']}#ko_arith" not in sets
    assert f"{bad['nan_figure']}#ko_quiz" in sets and f"{bad['nan_figure']}#ko_arith" not in sets
    assert {f"{bad['bad_lines']}#ko_quiz", f"{bad['bad_lines']}#ko_arith"} <= sets
    assert {f"{path}#{task}" for path in RESULTS for task in ("ko_quiz", "ko_arith")} <= sets
    # the file with bad lines: the 5 documents left (lines 1, 2, 5, 7, 8) are scored; their mean is
    # not lm-eval's figure over 8, and the verdict says so
    kept = [line["acc"] for i, line in enumerate(lines(samples_path(NIGHT_1, "ko_quiz"))) if i not in (2, 3, 5)]
    value, tool, agrees = figure(wh, f"{bad['bad_lines']}#ko_quiz", "acc,none", "mean")
    assert value == pytest.approx(sum(kept) / len(kept), abs=1e-12) and len(kept) == 5
    assert tool == document(NIGHT_1)["results"]["ko_quiz"]["acc,none"] and agrees is False
    # the night's verdict names set, scorer, metric and both figures
    assert f"{bad['bad_lines']}#ko_quiz acc,none mean: 0.8 here, 0.75 in the results file" in err


def test_a_group_is_no_set_and_its_tasks_are(night):
    wh, _, _, bad = night
    sets = {r[0] for r in wh.query("select set_id from marts.lm_eval_runs where source_file = ?", [bad["group"]])}
    assert sets == {f"{bad['group']}#ko_quiz", f"{bad['group']}#ko_arith"}
    assert wh.query("select count(*) from ops.rejected_rows where source_file = ?", [bad["group"]]) == [(0,)]


def test_a_run_date_past_any_timestamp_is_no_date_and_the_run_is_scored(night):
    """``date`` (epoch seconds) of 1e30 is past what a timestamp holds: the
    run has no start time, and its tasks are sets as any run's are."""
    wh, _, _, bad = night
    found = wh.query("select set_id, created_at from marts.lm_eval_runs where source_file = ?", [bad["absurd_date"]])
    assert sorted(found) == [(f"{bad['absurd_date']}#ko_arith", None), (f"{bad['absurd_date']}#ko_quiz", None)]


def test_a_samples_file_delivered_a_night_later_makes_the_set(late_deliveries):
    early, late = (night.wh for night in late_deliveries)
    results = run_file("late")
    assert early.exit_code == cli.EXIT_REJECTED
    assert early.query("select reason from ops.rejected_rows where is_current and source_file = ?", [results]) == [
        ("missing_samples_file",)
    ]
    assert late.exit_code == cli.EXIT_OK
    assert late.query("select count(*) from ops.rejected_rows where is_current and kind like 'lm_eval%'") == [(0,)]
    _, tool, agrees = figure(late, f"{results}#ko_arith", "exact_match,strict-match", "mean")
    assert tool == document(NIGHT_1)["results"]["ko_arith"]["exact_match,strict-match"] and agrees is True


# ---------------------------------------------------------------- reports, viewer


def test_reports_and_the_viewer_show_each_task(imported_warehouse):
    wh = imported_warehouse
    folder = wh.paths.reports_dir / "lm_eval" / "2026-11-02" / "lm_eval" / "acme__korean-7b"
    stem = Path(NIGHT_2).stem
    assert sorted(p.name for p in folder.glob("*.md")) == [f"{stem}-ko_arith.md", f"{stem}-ko_quiz.md"]
    assert "lm_eval:ko_quiz:acme/korean-7b" in (folder / f"{stem}-ko_quiz.md").read_text(encoding="utf-8")
    client = create_app(wh.paths.published_db).test_client()
    set_id = f"{NIGHT_2}#ko_quiz"
    failing = [line["doc_id"] for line in lines(samples_path(NIGHT_2, "ko_quiz")) if line["acc"] != 1]
    page = client.get("/set", query_string={"id": set_id, "scorer": "acc,none", "result": "fail"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "lm_eval reported" in text
    assert text.count("</td><td>acc,none</td>") == len(failing)
    item = client.get("/set", query_string={"id": set_id, "sample": "0", "epoch": "1"})
    assert item.status_code == 200 and "대한민국의 수도는?" in item.get_data(as_text=True)
