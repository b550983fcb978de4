"""OpenAI Evals record files in the warehouse, checked against what evals
itself reports.

The record files in tests/fixtures/openai_evals/drops were written by
OpenAI Evals (``oaieval``, evals 3.0.1.post1) with offline completion
functions (scripts/fixtures/openai_evals_records.py), and
tests/fixtures/openai_evals/expected.json copies what evals wrote in them
(each spec, final report and scoring event): every expected figure below
comes from there or from the files' own events, none from this warehouse.
The bad files are made by code from the real ones."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import pytest

from agent_eval import cli
from agent_eval.viewer import create_app
from conftest import FIXTURES, IMPORTED_MOVES, Warehouse

OAIEVALS = FIXTURES / "openai_evals"
EXPECTED_ALL = json.loads((OAIEVALS / "expected.json").read_text(encoding="utf-8"))
EXPECTED = EXPECTED_ALL["files"]
NIGHT_1, NIGHT_2, NIGHT_3 = "2026-10-01", "2026-10-02", "2026-10-03"


def fixture(day: str, name: str) -> str:
    return f"drops/{day}/openai_evals/{name}.jsonl"


LOOKUP_1, LOOKUP_2 = fixture(NIGHT_1, "greetings.lookup"), fixture(NIGHT_2, "greetings.lookup")
COT = fixture(NIGHT_1, "greetings.cot")
DUMMY = fixture(NIGHT_1, "greetings.dummy")
FUZZY_2 = fixture(NIGHT_2, "greetings-fuzzy.lookup")
GRADED_2 = fixture(NIGHT_2, "greetings-graded.lookup")
TURNS_1 = fixture(NIGHT_1, "greetings-turns.lookup")
CRASHED = fixture(NIGHT_3, "greetings.crashed")
FINISHED = [path for path, facts in EXPECTED.items() if facts["final_report"] is not None]

BAD_NIGHT = "2026-10-04"
BAD_FILES = {
    "no_spec": "no_spec.jsonl",
    "spec_no_run_id": "spec_no_run_id.jsonl",
    "not_json": "not_json.jsonl",
    "two_runs": "two_runs.jsonl",
    "other_report": "other_report.jsonl",
}
BAD_RECORDS = {
    "truncated": "truncated.jsonl",
    "nan": "nan_metric.jsonl",
    "text": "text_metric.jsonl",
    "not_bool": "match_not_bool.jsonl",
    "duplicate": "duplicate_event.jsonl",
    "bad_line": "bad_line.jsonl",
    "other_run": "other_run_event.jsonl",
}


# the crashed run continues the series of greetings x fixture/lookup; the
# tests put it before the two nights, so that night 2 stays the latest set
# of its series (history_flips)
MOVED = {CRASHED: IMPORTED_MOVES[f"openai_evals/{CRASHED}"]}


ERROR_RUN = "2026-10-05/openai_evals/with_error.jsonl"


def bad(name: str) -> str:
    return f"{BAD_NIGHT}/openai_evals/{name}"


def lines_of(path: str) -> list[str]:
    return (OAIEVALS / path).read_text(encoding="utf-8").splitlines()


def documents(path: str) -> list[dict]:
    return [json.loads(line) for line in lines_of(path)]


def with_eval_name(lines: list[str], name: str) -> list[str]:
    """The file as a run of an eval of its own (a series of its own)."""
    spec = json.loads(lines[0])
    spec["spec"]["eval_name"] = name
    return [json.dumps(spec, ensure_ascii=False), *lines[1:]]


def write(drops: Path, name: str, lines: list[str], newline: bool = True) -> None:
    (drops / bad(name)).write_text("\n".join(lines) + ("\n" if newline else ""), encoding="utf-8")


def event_line(lines: list[str], kind: str, nth: int = 0) -> int:
    """The index of the nth event of a type."""
    found = [i for i, line in enumerate(lines) if json.loads(line).get("type") == kind]
    return found[nth]


def write_bad_records(drops: Path) -> None:
    (drops / BAD_NIGHT / "openai_evals").mkdir(parents=True)
    lookup, fuzzy = lines_of(LOOKUP_1), lines_of(FUZZY_2)
    # whole files
    write(drops, BAD_FILES["no_spec"], lookup[1:])
    spec = json.loads(lookup[0])
    del spec["spec"]["run_id"]
    write(drops, BAD_FILES["spec_no_run_id"], [json.dumps(spec), *lookup[1:]])
    write(drops, BAD_FILES["not_json"], ["{spec: oops", *lookup[1:]])
    write(drops, BAD_FILES["two_runs"], with_eval_name(lookup, "bad-two.dev.v0") + lines_of(LOOKUP_2))
    report = json.loads(lookup[1])
    report["run_id"] = "another-run"
    write(drops, BAD_FILES["other_report"], [lookup[0], json.dumps(report), *lookup[2:]])
    # records
    text = "\n".join(with_eval_name(lookup, "bad-truncated.dev.v0"))
    (drops / bad(BAD_RECORDS["truncated"])).write_text(text[: len(text) - 40], encoding="utf-8")
    nan = with_eval_name(fuzzy, "bad-nan.dev.v0")
    i = event_line(nan, "metrics", 2)
    event = json.loads(nan[i])
    event["data"]["f1_score"] = float("nan")  # json writes a bare NaN, as evals' writer would
    nan[i] = json.dumps(event, ensure_ascii=False)
    write(drops, BAD_RECORDS["nan"], nan)
    text_metric = with_eval_name(fuzzy, "bad-text.dev.v0")
    i = event_line(text_metric, "metrics", 3)
    event = json.loads(text_metric[i])
    event["data"]["f1_score"] = "0.5"
    text_metric[i] = json.dumps(event, ensure_ascii=False)
    write(drops, BAD_RECORDS["text"], text_metric)
    not_bool = with_eval_name(lookup, "bad-bool.dev.v0")
    i = event_line(not_bool, "match", 1)
    event = json.loads(not_bool[i])
    event["data"]["correct"] = 1
    not_bool[i] = json.dumps(event, ensure_ascii=False)
    write(drops, BAD_RECORDS["not_bool"], not_bool)
    duplicate = with_eval_name(lookup, "bad-duplicate.dev.v0")
    write(drops, BAD_RECORDS["duplicate"], [*duplicate, duplicate[event_line(duplicate, "match", 0)]])
    bad_line = with_eval_name(lookup, "bad-line.dev.v0")
    write(drops, BAD_RECORDS["bad_line"], [*bad_line[:4], "not json at all {", *bad_line[4:]])
    other_run = with_eval_name(lookup, "bad-other.dev.v0")
    i = event_line(other_run, "sampling", 0)
    event = json.loads(other_run[i])
    event["run_id"] = "another-run"
    other_run[i] = json.dumps(event, ensure_ascii=False)
    write(drops, BAD_RECORDS["other_run"], other_run)


def write_error_run(drops: Path) -> None:
    """night 1's run with an error event (evals' record_error: {type,
    message}) for one sample, as an eval that catches a failure records it."""
    lines = with_eval_name(lines_of(LOOKUP_1), "with-error.dev.v0")
    last = json.loads(lines[-1])
    error = {
        **last,
        "event_id": max(json.loads(line).get("event_id", -1) for line in lines) + 1,
        "type": "error",
        "data": {"type": "RuntimeError", "message": "fixture: the sample failed"},
    }
    (drops / ERROR_RUN).parent.mkdir(parents=True)
    (drops / ERROR_RUN).write_text("\n".join([*lines, json.dumps(error)]) + "\n", encoding="utf-8")


def write_hostile_night(drops: Path) -> None:
    """This module's files of the session's hostile night (conftest,
    ``hostile_imports``): the bad files and the run with an error event."""
    write_bad_records(drops)
    write_error_run(drops)


@pytest.fixture(scope="module")
def night(hostile_imports):
    """The bad files and the run with an error event, nights after every
    imported tool's good fixtures: the session's hostile night, beside the
    other import modules' bad files."""
    return hostile_imports.wh, hostile_imports.wh.exit_code, hostile_imports.err


def set_of(path: str) -> str:
    return MOVED.get(path) or path.removeprefix("drops/")


def figure(wh: Warehouse, set_id: str, scorer: str, metric: str) -> tuple:
    [row] = wh.query(
        "select value, tool_reported_value, agrees_with_tool from marts.eval_set_scores "
        "where set_id = ? and scorer = ? and metric = ?",
        [set_id, scorer, metric],
    )
    return row


def test_the_fixtures_are_what_oaieval_wrote():
    assert EXPECTED_ALL["evals_version"] == "3.0.1.post1"
    for path, facts in EXPECTED.items():
        docs = documents(path)
        assert docs[0]["spec"]["run_id"] == facts["run_id"]
        assert len(docs) == facts["n_lines"]
    # evals writes the final report when the run ends, before its buffered events
    assert {EXPECTED[p]["final_report_line"] for p in FINISHED} == {2}
    assert EXPECTED[CRASHED]["final_report"] is None and EXPECTED[CRASHED]["oaieval_exit_code"] != 0
    # several events of one type in a sample: CoT's sampling, the turns' matches
    assert max(n for n in count_by_sample(COT, "sampling").values()) == 4
    assert max(n for n in count_by_sample(TURNS_1, "match").values()) == 3


def count_by_sample(path: str, kind: str) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for doc in documents(path)[1:]:
        if doc.get("type") == kind:
            counts[doc["sample_id"]] += 1
    return counts


def where_reported(facts: dict, key: str) -> tuple[str, str]:
    """Where a final report figure is in eval_set_scores, by the rule the
    warehouse documents (docs/openai-evals.md)."""
    metrics_keys = {k for m in facts["metrics"] for k, v in m["data"].items() if isinstance(v, (int, float))}
    if key in metrics_keys:
        return key, "mean"
    if key in ("accuracy", "boostrap_std"):
        return "match", key
    if key.startswith("usage_"):
        return "usage", key.removeprefix("usage_")
    if key.startswith("counts/"):
        return "choice", key
    return "final_report", key


@pytest.mark.parametrize("path", FINISHED)
def test_every_final_report_figure_equals_the_warehouses(imported_warehouse, path):
    wh = imported_warehouse
    facts = EXPECTED[path]
    for key, reported in facts["final_report"].items():
        scorer, metric = where_reported(facts, key)
        value, tool_reported, agrees = figure(wh, set_of(path), scorer, metric)
        assert tool_reported == pytest.approx(reported, abs=1e-12), (path, key)
        if key == "boostrap_std":  # a random bootstrap: kept, not recomputed
            assert value is None and agrees is None
            continue
        assert value == pytest.approx(reported, abs=1e-9), (path, key, value)
        assert agrees is True, (path, key)


@pytest.mark.parametrize("path", [LOOKUP_1, LOOKUP_2, COT, DUMMY, TURNS_1, CRASHED])
def test_accuracy_is_evals_get_accuracy_over_the_match_events(imported_warehouse, path):
    wh = imported_warehouse
    matches = EXPECTED[path]["match"]
    value, _, _ = figure(wh, set_of(path), "match", "accuracy")
    assert value == pytest.approx(sum(m["correct"] for m in matches) / len(matches), abs=1e-12)
    rows = wh.dicts(
        "select sample_id, epoch, line_number, value, is_pass from marts.openai_evals_item_scores "
        "where set_id = ? and scorer = 'match'",
        [set_of(path)],
    )
    by_line = {r["line_number"]: r for r in rows}
    assert len(rows) == len(matches)
    epochs: dict[str, list[int]] = defaultdict(list)
    for m in sorted(matches, key=lambda m: m["event_id"]):
        row = by_line[m["line"]]
        assert row["sample_id"] == m["sample_id"] and row["is_pass"] is m["correct"]
        assert row["value"] == (1.0 if m["correct"] else 0.0)
        epochs[m["sample_id"]].append(row["epoch"])
    # the k-th match event of a sample is its epoch k
    assert all(found == list(range(1, len(found) + 1)) for found in epochs.values())


def test_each_match_judges_the_sampling_events_before_it(imported_warehouse):
    wh = imported_warehouse
    events = [d for d in documents(COT)[1:] if "type" in d]
    rows = {
        r["line_number"]: r
        for r in wh.dicts(
            "select line_number, input, completion, input_tokens, output_tokens "
            "from marts.openai_evals_item_scores where set_id = ? and scorer = 'match'",
            [set_of(COT)],
        )
    }
    lines = lines_of(COT)
    for number, line in enumerate(lines, start=1):
        event = json.loads(line)
        if event.get("type") != "match":
            continue
        judged = [
            e
            for e in events
            if e["type"] == "sampling" and e["sample_id"] == event["sample_id"] and e["event_id"] < event["event_id"]
        ]
        usage = [e["data"]["usage"] for e in judged if "usage" in e["data"]]
        row = rows[number]
        assert row["input_tokens"] == sum(u["prompt_tokens"] for u in usage)
        assert row["output_tokens"] == sum(u["completion_tokens"] for u in usage)
        first_prompt = min(judged, key=lambda e: e["event_id"])["data"]["prompt"]
        assert row["input"] == [m for m in first_prompt if m["role"] == "user"][-1]["content"]
        assert row["completion"] == event["data"]["sampled"]  # what the match event judged


def test_a_run_without_sampling_events_keeps_what_its_match_events_hold(imported_warehouse):
    wh = imported_warehouse
    rows = wh.dicts(
        "select input, completion, answer, target, input_tokens from marts.openai_evals_item_scores where set_id = ?",
        [set_of(DUMMY)],
    )
    assert len(rows) == len(EXPECTED[DUMMY]["match"])
    assert {r["completion"] for r in rows} == {"This is a dummy response."}
    assert all(r["input"] is None and r["input_tokens"] is None and r["target"] for r in rows)
    [(tokens,)] = wh.query("select input_tokens from marts.eval_runs where set_id = ?", [set_of(DUMMY)])
    assert tokens is None


def test_metrics_keys_are_scorers_and_text_keys_their_explanation(imported_warehouse):
    wh = imported_warehouse
    facts = EXPECTED[GRADED_2]
    rows = wh.dicts(
        "select line_number, scorer, value, is_pass, explanation from marts.openai_evals_item_scores where set_id = ?",
        [set_of(GRADED_2)],
    )
    assert {r["scorer"] for r in rows} == {"score"}  # choice holds text: no scorer
    by_line = {r["line_number"]: r for r in rows}
    for m in facts["metrics"]:
        row = by_line[m["line"]]
        assert row["value"] == m["data"]["score"]
        assert row["explanation"] == f"choice: {m['data']['choice']}"
        assert row["is_pass"] is (m["data"]["score"] >= 1)
    [(headline,)] = wh.query("select headline_scorer from marts.eval_runs where set_id = ?", [set_of(GRADED_2)])
    assert headline == "score"


def test_a_run_without_final_report_is_loaded_and_marked_incomplete(imported_warehouse):
    wh = imported_warehouse
    [run] = wh.dicts("select * from marts.eval_runs where set_id = ?", [set_of(CRASHED)])
    assert run["is_complete"] is False and run["status"] == "started"
    assert "did not finish" in run["run_error"]
    assert run["n_sample_records"] == len(EXPECTED[CRASHED]["match"])
    reported = wh.query(
        "select count(*) from marts.eval_set_scores where set_id = ? and tool_reported_value is not null",
        [set_of(CRASHED)],
    )
    assert reported == [(0,)]
    [(complete,)] = wh.query(
        "select metric_value from marts.history_set_metrics where set_id = ? and metric = 'run_complete'",
        [set_of(CRASHED)],
    )
    assert complete == 0


def test_series_is_the_eval_and_its_completion_functions(imported_warehouse):
    wh = imported_warehouse
    for path in (LOOKUP_1, GRADED_2):
        facts = EXPECTED[path]
        spec = documents(path)[0]["spec"]
        [run] = wh.dicts("select * from marts.openai_evals_runs where set_id = ?", [set_of(path)])
        fns = ",".join(facts["completion_fns"])
        assert (run["task"], run["model"], run["run_id"]) == (facts["eval_name"], fns, facts["run_id"])
        assert run["series_id"] == f"openai_evals:{facts['eval_name']}:{fns}"
        assert run["created_at"].strftime("%Y-%m-%d %H:%M:%S.%f") == spec["created_at"]  # UTC
        assert (run["base_eval"], run["eval_split"], run["eval_class"]) == (
            spec["base_eval"],
            spec["split"],
            spec["run_config"]["eval_spec"]["cls"],
        )
        assert (run["seed"], run["command"]) == (spec["run_config"]["seed"], spec["run_config"]["command"])
        assert json.loads(run["final_report_json"]) == facts["final_report"]
        assert run["final_report_line"] == facts["final_report_line"] == 2


def test_an_error_event_marks_its_samples_items(night):
    wh, _, _ = night
    error = json.loads((wh.drops / ERROR_RUN).read_text(encoding="utf-8").splitlines()[-1])
    rows = wh.dicts("select sample_id, error from marts.openai_evals_item_scores where set_id = ?", [ERROR_RUN])
    assert {r["sample_id"] for r in rows if r["error"]} == {error["sample_id"]}
    assert {r["error"] for r in rows if r["error"]} == {error["data"]["message"]}
    [(n_errored, n_error_events)] = wh.query(
        "select n_errored, n_error_events from marts.openai_evals_runs where set_id = ?", [ERROR_RUN]
    )
    assert (n_errored, n_error_events) == (1, 1)
    statuses = dict(
        wh.query("select query_id, status from intermediate.int_history__items where set_id = ?", [ERROR_RUN])
    )
    assert statuses[error["sample_id"]] == "error"


def test_flips_between_the_two_nights_pair_each_sample(imported_warehouse):
    wh = imported_warehouse
    before = {m["sample_id"]: m["correct"] for m in EXPECTED[LOOKUP_1]["match"]}
    after = {m["sample_id"]: m["correct"] for m in EXPECTED[LOOKUP_2]["match"]}
    expected = {s: ("pass_to_fail" if before[s] else "fail_to_pass") for s in before if before[s] != after[s]}
    assert set(expected.values()) == {"pass_to_fail", "fail_to_pass"}  # the nights differ both ways
    got = dict(
        wh.query(
            "select query_id, transition from marts.history_flips "
            "where set_id = ? and transition in ('pass_to_fail', 'fail_to_pass')",
            [set_of(LOOKUP_2)],
        )
    )
    assert got == expected


def test_records_reconcile_events_read_plus_rejected(night):
    wh, _, _ = night
    rows = {
        r["source_file"]: r
        for r in wh.dicts("select * from ops.file_reconciliation where kind = 'openai_evals_record'")
    }
    for path, facts in EXPECTED.items():
        r = rows[set_of(path)]
        n_events = facts["n_lines"] - 1 - (facts["final_report_line"] is not None)
        assert r["n_raw_rows"] == n_events == r["n_scored_rows"] + r["n_rejected_rows"]
        assert r["n_rejected_rows"] == 0
    for name in BAD_RECORDS.values():
        r = rows[bad(name)]
        assert r["n_rejected_rows"] == 1 and r["n_raw_rows"] == r["n_scored_rows"] + 1, name


def test_each_bad_file_is_a_clear_rejection_and_nothing_else_stops(night):
    wh, code, err = night
    assert code == cli.EXIT_REJECTED
    files = dict(wh.query("select source_file, reject_reason from ops.rejected_files where is_latest"))
    assert "line 1 is not a spec line" in files[bad(BAD_FILES["no_spec"])]
    assert "has no run_id" in files[bad(BAD_FILES["spec_no_run_id"])]
    assert "line 1 is not JSON" in files[bad(BAD_FILES["not_json"])]
    assert "second spec line" in files[bad(BAD_FILES["two_runs"])]
    assert "is of run 'another-run'" in files[bad(BAD_FILES["other_report"])]
    assert bad(BAD_FILES["no_spec"]) in err
    rows = {
        (r["source_file"], r["reason"]): r["reason_detail"]
        for r in wh.dicts("select * from ops.rejected_rows where is_current and kind = 'openai_evals_record'")
    }
    n_lines = len(lines_of(LOOKUP_1))
    assert f"line {n_lines}" in rows[(bad(BAD_RECORDS["truncated"]), "invalid_json")]
    assert "metrics 'f1_score' is nan, not a finite number" in rows[(bad(BAD_RECORDS["nan"]), "invalid_value")]
    assert "metrics 'f1_score' is \"0.5\", not a number" in rows[(bad(BAD_RECORDS["text"]), "invalid_value")]
    assert "match correct is 1, not true or false" in rows[(bad(BAD_RECORDS["not_bool"]), "invalid_value")]
    assert "event_id" in rows[(bad(BAD_RECORDS["duplicate"]), "duplicate_event")]
    assert "line 5" in rows[(bad(BAD_RECORDS["bad_line"]), "invalid_json")]
    assert "another-run" in rows[(bad(BAD_RECORDS["other_run"]), "invalid_event")]
    # every good file is published, and the rest of each file with a bad event
    published = {r[0] for r in wh.query("select source_file from marts.openai_evals_runs")}
    assert {set_of(p) for p in EXPECTED} | {bad(n) for n in BAD_RECORDS.values()} <= published
    assert not {bad(n) for n in BAD_FILES.values()} & published


def test_a_nan_final_report_figure_is_no_figure(night):
    wh, _, _ = night
    # the NaN metric's event is rejected: the warehouse's mean is over the
    # others, the final report's (computed over all) differs: a verdict
    value, reported, agrees = figure(wh, bad(BAD_RECORDS["nan"]), "f1_score", "mean")
    assert math.isfinite(value) and reported == EXPECTED[FUZZY_2]["final_report"]["f1_score"]
    assert agrees is False
    verdicts = wh.query("select count(*) from marts.eval_set_scores where agrees_with_tool = false")
    assert verdicts[0][0] >= 1


def test_reports_and_the_viewer_show_each_run(imported_warehouse):
    wh = imported_warehouse
    reports = sorted(p.name for p in (wh.paths.reports_dir / "openai_evals" / NIGHT_2).rglob("*.md"))
    assert "greetings.lookup.md" in reports
    client = create_app(wh.paths.published_db).test_client()
    set_id = set_of(LOOKUP_2)
    failing = [m for m in EXPECTED[LOOKUP_2]["match"] if not m["correct"]]
    page = client.get("/set", query_string={"id": set_id, "scorer": "match", "result": "fail"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "openai_evals" in text
    assert text.count("</td><td>match</td>") == len(failing)
