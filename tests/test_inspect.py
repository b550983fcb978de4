"""Inspect AI logs in the warehouse, checked against what Inspect itself
reports.

The logs in tests/fixtures/inspect/drops were written by inspect_ai with
its offline mockllm provider (scripts/fixtures/inspect_logs.py), and
tests/fixtures/inspect/expected.json holds what inspect_ai's own API reads
from them (read_eval_log, value_to_float): every expected figure below
comes from there, none from this warehouse. The bad logs are made by code
from the real ones (a truncated zip, a member that is not JSON, an unknown
version, a duplicate sample, a score of an unexpected type, a reported
figure that disagrees with the samples)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import zipfile
from pathlib import Path

import duckdb
import pytest
from mutations import rewrite_members, sample_members

from agent_eval import cli
from agent_eval.viewer import create_app
from conftest import FIXTURES, IMPORTS

INSPECT = FIXTURES / "inspect"
EXPECTED = json.loads((INSPECT / "expected.json").read_text(encoding="utf-8"))["logs"]
NIGHT_1, NIGHT_2 = sorted(p for p in EXPECTED if "_arith_" in p and p.endswith(".eval"))
BAD_NIGHT = "2026-11-04"
BAD = {
    "truncated": f"{BAD_NIGHT}/inspect/truncated.eval",
    "not_json": f"{BAD_NIGHT}/inspect/not_json_member.eval",
    "version": f"{BAD_NIGHT}/inspect/unknown_version.json",
    "duplicate": f"{BAD_NIGHT}/inspect/duplicate_sample.json",
    "score_type": f"{BAD_NIGHT}/inspect/list_score.json",
    "disagrees": f"{BAD_NIGHT}/inspect/disagrees.json",
}


def set_id(fixture_path: str) -> str:
    return fixture_path.removeprefix("drops/")


def scorer_name(score: dict) -> str:
    """A results entry's scorer as the warehouse names it (a dict score's
    key: scorer.key)."""
    return score["name"] if score["name"] == score["scorer"] else f"{score['scorer']}.{score['name']}"


def as_float(value):
    if value in ("nan", "inf", "-inf"):
        return float(value)
    return value


def write_bad_logs(drops: Path) -> None:
    folder = drops / BAD_NIGHT / "inspect"
    folder.mkdir(parents=True)
    night_1 = INSPECT / NIGHT_1
    data = night_1.read_bytes()
    (drops / BAD["truncated"]).write_bytes(data[: len(data) // 2])
    # a copy whose first sample member is text that is not JSON, under a
    # model of its own (a series of its own)

    def own_model(member: bytes) -> bytes:
        return member.replace(b'"model":"mockllm/model"', b'"model":"mockllm/not-json"')

    changes = dict.fromkeys(("header.json", "_journal/start.json"), own_model)
    changes[sample_members(data)[0]] = lambda _: b'{"id": "q01", "epoch": 1, "scores": '
    (drops / BAD["not_json"]).write_bytes(rewrite_members(data, changes))
    json_log = json.loads((INSPECT / next(p for p in EXPECTED if p.endswith(".json"))).read_text(encoding="utf-8"))
    (drops / BAD["version"]).write_text(json.dumps(dict(json_log, version=99)), encoding="utf-8")
    duplicated = dict(json_log, samples=[*json_log["samples"], json_log["samples"][0]])
    (drops / BAD["duplicate"]).write_text(json.dumps(duplicated), encoding="utf-8")
    listed = json.loads(json.dumps(json_log))
    listed["samples"][1]["scores"]["match"]["value"] = ["C", "I"]
    (drops / BAD["score_type"]).write_text(json.dumps(listed), encoding="utf-8")
    disagrees = json.loads(json.dumps(json_log))
    disagrees["eval"]["model"] = "mockllm/disagrees"  # a series of its own
    disagrees["results"]["scores"][0]["metrics"]["accuracy"]["value"] = 0.123
    (drops / BAD["disagrees"]).write_text(json.dumps(disagrees), encoding="utf-8")


@pytest.fixture(scope="module")
def night(module_built):
    """The bad logs, a night after every imported tool's good fixtures."""
    wh, _ = module_built(IMPORTS)
    write_bad_logs(wh.drops)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = wh.build()
    return wh, code, err.getvalue()


def test_the_fixtures_are_what_inspect_writes_zstd_members_python_cannot_read():
    with zipfile.ZipFile(INSPECT / NIGHT_1) as archive:
        assert {info.compress_type for info in archive.infolist()} == {93}
        with pytest.raises(NotImplementedError):
            archive.read(archive.infolist()[0])


def test_each_scorer_metric_equals_what_inspect_reported(imported_warehouse):
    wh = imported_warehouse
    checked = 0
    for path, log in EXPECTED.items():
        for score in (log.get("results") or {}).get("scores", []):
            for metric, figure in score["metrics"].items():
                rows = wh.query(
                    "select value, tool_reported_value, agrees_with_tool from marts.eval_set_scores "
                    "where set_id = ? and scorer = ? and metric = ?",
                    [set_id(path), scorer_name(score), metric],
                )
                assert len(rows) == 1, (path, score["name"], metric)
                value, reported, agrees = rows[0]
                assert value == pytest.approx(figure, abs=1e-9), (path, score["name"], metric)
                assert reported == pytest.approx(figure, abs=1e-12)
                assert agrees is True
                checked += 1
    assert checked >= 20


def test_each_run_is_described_as_the_log_describes_it(imported_warehouse):
    wh = imported_warehouse
    for path, log in EXPECTED.items():
        [run] = wh.dicts("select * from marts.eval_runs where set_id = ?", [set_id(path)])
        assert (run["status"], run["task"], run["model"], run["run_id"]) == (
            log["status"],
            log["task"],
            log["model"],
            log["run_id"],
        )
        assert run["is_complete"] == (log["status"] == "success")
        assert run["n_sample_records"] == log["n_sample_records"] == len(log["samples"])
        assert run["n_samples"] == len({s["id"] for s in log["samples"]})
        if log["stats_model_usage"]:
            usage = log["stats_model_usage"].values()
            assert run["input_tokens"] == sum(u["input_tokens"] for u in usage)
            assert run["output_tokens"] == sum(u["output_tokens"] for u in usage)
        assert run["series_id"] == f"inspect_ai:{log['task']}:{log['model']}"


def test_every_score_of_every_sample_is_inspects_value_to_float(imported_warehouse):
    wh = imported_warehouse
    for path, log in EXPECTED.items():
        got = {
            (r["sample_id"], r["epoch"], r["scorer"]): r
            for r in wh.dicts("select * from marts.eval_item_scores where set_id = ?", [set_id(path)])
        }
        n_expected = 0
        for sample in log["samples"]:
            for name, score in sample["scores"].items():
                values = score["value_to_float"]
                parts = values.items() if isinstance(values, dict) else [(None, values)]
                for key, value in parts:
                    scorer = name if key is None else f"{name}.{key}"
                    row = got[(str(sample["id"]), sample["epoch"], scorer)]
                    value = as_float(value)
                    if isinstance(value, float) and math.isnan(value):
                        assert row["value"] is None and row["value_raw"] == "NaN"  # unscored
                    else:
                        assert row["value"] == pytest.approx(value, abs=1e-12), (path, sample["id"], scorer)
                    n_expected += 1
            if sample["error"]:
                errored = [r for k, r in got.items() if k[:2] == (str(sample["id"]), sample["epoch"])]
                assert errored and all(r["error"] and r["value"] is None for r in errored)
        assert n_expected == sum(1 for r in got.values() if r["error"] is None)


def headline_passes(log: dict) -> dict[tuple[str, str], bool]:
    """(sample id, epoch) -> passes, by the headline scorer's
    value_to_float reaching 1 (seed inspect_pass_rules)."""
    scorer = "match"
    assert any(s["name"] == scorer for s in log["results"]["scores"])
    return {(s["id"], str(s["epoch"])): s["scores"][scorer]["value_to_float"] >= 1 for s in log["samples"]}


def test_flips_between_the_two_nights_pair_each_sample_and_epoch(imported_warehouse):
    wh = imported_warehouse
    before, after = headline_passes(EXPECTED[NIGHT_1]), headline_passes(EXPECTED[NIGHT_2])
    expected = {key: ("pass_to_fail" if before[key] else "fail_to_pass") for key in before if before[key] != after[key]}
    assert expected  # the fixture's nights differ
    got = {
        (q, r): t
        for q, r, t in wh.query(
            "select query_id, round, transition from marts.history_flips where set_id = ? "
            "and transition in ('pass_to_fail', 'fail_to_pass')",
            [set_id(NIGHT_2)],
        )
    }
    assert got == expected


def test_pass_at_k_counts_the_epochs_of_each_sample(imported_warehouse):
    wh = imported_warehouse
    passes = headline_passes(EXPECTED[NIGHT_2])
    for (sample, _k), n_runs, n_pass in wh.query(
        "select (query_id, k), n_runs, n_pass from marts.history_query_pass_at_k where set_id = ?",
        [set_id(NIGHT_2)],
    ):
        assert n_runs == EXPECTED[NIGHT_2]["epochs"]
        assert n_pass == sum(ok for (s, _), ok in passes.items() if s == sample)


def test_records_reconcile_samples_times_epochs_scored_plus_rejected(imported_warehouse):
    wh = imported_warehouse
    rows = {r["source_file"]: r for r in wh.dicts("select * from ops.file_reconciliation where kind = 'inspect_log'")}
    for path, log in EXPECTED.items():
        r = rows[set_id(path)]
        assert r["n_raw_rows"] == log["n_sample_records"] == r["n_scored_rows"] + r["n_rejected_rows"]


def test_each_bad_log_is_a_clear_rejection_and_nothing_else_stops(night):
    wh, code, _ = night
    assert code == cli.EXIT_REJECTED
    files = dict(wh.query("select source_file, reject_reason from ops.rejected_files where is_latest"))
    assert files[BAD["truncated"]].startswith("not a readable .eval zip")
    assert files[BAD["version"]].startswith("unknown Inspect log version 99")
    rows = {
        (r["source_file"], r["reason"]): r["reason_detail"]
        for r in wh.dicts("select * from ops.rejected_rows where is_current and kind = 'inspect_log'")
    }
    assert "member samples/" in rows[(BAD["not_json"], "invalid_json")]
    assert "also samples[0]" in rows[(BAD["duplicate"], "duplicate_sample")]
    assert "is a list" in rows[(BAD["score_type"], "invalid_score")]
    # the rest of each bad log is scored; the good logs are published
    with duckdb.connect(str(wh.paths.published_db), read_only=True) as con:
        published = {r[0] for r in con.execute("select set_id from marts.eval_runs").fetchall()}
    assert {set_id(p) for p in EXPECTED} | {BAD["not_json"], BAD["duplicate"], BAD["score_type"]} <= published


def test_a_figure_that_disagrees_with_the_log_names_the_set_and_metric_and_the_night_is_published(night):
    wh, code, err = night
    [row] = wh.query(
        "select value, tool_reported_value, agrees_with_tool from marts.eval_set_scores "
        "where set_id = ? and scorer = 'match' and metric = 'accuracy'",
        [BAD["disagrees"]],
    )
    assert row[1] == 0.123 and row[2] is False
    assert f"{BAD['disagrees']} match accuracy" in err
    assert code == cli.EXIT_REJECTED


def test_an_unfinished_log_is_loaded_and_marked_incomplete(imported_warehouse):
    wh = imported_warehouse
    unfinished = {set_id(p): log["status"] for p, log in EXPECTED.items() if log["status"] != "success"}
    assert set(unfinished.values()) >= {"error", "started"}
    for sid, status in unfinished.items():
        assert wh.query("select status, is_complete from marts.eval_runs where set_id = ?", [sid]) == [(status, False)]
    # run_complete, the history metric a gate can require: 1 for status success only
    complete = dict(
        wh.query("select set_id, metric_value from marts.history_set_metrics where metric = 'run_complete'")
    )
    for path, log in EXPECTED.items():
        assert complete[set_id(path)] == (1.0 if log["status"] == "success" else 0.0)


def test_the_viewer_filters_an_inspect_set_by_scorer_and_result(imported_warehouse):
    wh = imported_warehouse
    client = create_app(wh.paths.published_db).test_client()
    failing = sorted({s for (s, _), ok in headline_passes(EXPECTED[NIGHT_2]).items() if not ok})
    page = client.get("/set", query_string={"id": set_id(NIGHT_2), "scorer": "match", "result": "fail"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for sample in failing:
        assert f">{sample}</a></td>" in text
    passing = {s for (s, _), ok in headline_passes(EXPECTED[NIGHT_2]).items() if ok} - set(failing)
    assert not any(f">{sample}</a></td>" in text for sample in passing)


def test_the_viewer_shows_one_sample_with_every_scorer(imported_warehouse):
    wh = imported_warehouse
    log = EXPECTED[NIGHT_1]
    sample = next(s for s in log["samples"] if isinstance(s["scores"].get("quality", {}).get("value"), dict))
    client = create_app(wh.paths.published_db).test_client()
    page = client.get("/set", query_string={"id": set_id(NIGHT_1), "sample": sample["id"], "epoch": sample["epoch"]})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert f"Sample {sample['id']} · epoch {sample['epoch']}" in text
    for name, score in sample["scores"].items():
        keys = [f"{name}.{k}" for k in score["value"]] if isinstance(score["value"], dict) else [name]
        for scorer in keys:
            assert f"<tr><td>{scorer}</td>" in text
    missing = client.get("/set", query_string={"id": set_id(NIGHT_1), "sample": "no-such-sample", "epoch": 1})
    assert missing.status_code == 404
