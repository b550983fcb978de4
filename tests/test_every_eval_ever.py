"""Every Eval Ever files in the warehouse, checked against what the files
themselves say.

The files in tests/fixtures/every_eval_ever/converted were written by
EvalEval's own converters (lm-evaluation-harness and Inspect AI) from its
repository's test inputs (scripts/fixtures/every_eval_ever_files.py);
committed/ holds two files its repository commits as they are (the
conversion skill's reference output, and an aggregate of schema 0.2.0).
Every expected figure below is read from those files (each result's
score_details, each instance line's evaluation), none from this warehouse.
The second night and the bad files are made by code from the real ones.
The round trip exports the bundled sample warehouse with `agent-eval
export --format every-eval-ever` and imports the export: the figures the
import holds as the tool's are the first warehouse's history_set_metrics.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import pytest

from agent_eval import cli
from agent_eval.agents.every_eval_ever import reader
from agent_eval.exchange import every_eval_ever as exchange
from agent_eval.viewer import create_app
from conftest import EVERY_EVAL_EVER_NIGHTS, FIXTURES, Warehouse

EEE = FIXTURES / "every_eval_ever"
CONVERTED = EEE / "converted" / "data"
COMMITTED = EEE / "committed"
KIND = "every_eval_ever_aggregate"
NIGHT_1 = EVERY_EVAL_EVER_NIGHTS["converted/data"]  # every converted file
NIGHT_2 = EVERY_EVAL_EVER_NIGHTS["committed"]  # the committed files
NIGHT_3 = "2026-11-03"  # the ARC-Easy run of qwen again, two samples flipped
BAD_NIGHT = "2026-11-04"
QWEN = next((CONVERTED / "ai2_arc" / "ollama" / "qwen2.5-0.5b").glob("*[0-9a-f].json"))
OLD_VERSION = "98ea850e-7019-4728-a558-8b1819ec47c2.json"
DEMO = next(COMMITTED.rglob("f3a1c0de-*[0-9a-f].json"))


def instance_file(aggregate: Path) -> Path:
    return aggregate.with_name(aggregate.stem + "_samples.jsonl")


def lines_of(aggregate: Path) -> list[dict[str, Any]]:
    path = instance_file(aggregate)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def aggregates_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.json") if p.name != "runs.json")


# ---------------------------------------------------------------- the drops


def write_pair(
    folder: Path, stem: str, aggregate: dict[str, Any], lines: list[Any] | None, checksum: bool = True
) -> Path:
    """An aggregate and (unless ``lines`` is None) its instance file, the
    aggregate's detailed_evaluation_results naming the file, its rows and
    (with ``checksum``) its sha256, as a converter writes them."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{stem}.json"
    aggregate = json.loads(json.dumps(aggregate))
    if lines is not None:
        text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
        instance_file(target).write_text(text, encoding="utf-8")
        detail = aggregate["detailed_evaluation_results"]
        detail["file_path"] = detail["file_path"].rsplit("/", 1)[0] + f"/{stem}_samples.jsonl"
        detail["total_rows"] = len(lines)
        if checksum:
            detail["checksum"] = hashlib.sha256(text.encode()).hexdigest()
        else:
            detail.pop("checksum", None)
    target.write_text(json.dumps(aggregate, indent=2), encoding="utf-8")
    return target


BAD_FILES = {
    "no_version": "schema_version is missing",
    "version_099": "unknown Every Eval Ever schema_version '0.9.9' (read: 0.3.0)",
    "schema": "does not conform to eval.schema.json 0.3.0: at evaluation_results[0].metric_config.lower_is_better:",
    "truncated_aggregate": "not valid JSON",
    "nan_aggregate": "not valid JSON: non-finite number NaN",
    "missing_instances": "missing instance file",
    "truncated_instances": "does not match the aggregate's checksum",
    "short_instances": "has 2 line(s), the aggregate's total_rows says 3",
    "repeated_result": "evaluation_results[1] repeats scorer",
}
BAD_RECORDS = {
    # name: (line, reason code, words of the reason)
    "bad_line": (2, "invalid_json", "line 2:"),
    "nan_score": (2, "invalid_score", "line 2: evaluation.score NaN is not a finite number"),
    "text_score": (3, "invalid_score", 'line 3: evaluation.score "0.5" is not a number'),
    "duplicate": (4, "duplicate_instance", "line 4 repeats sample '1' epoch 1"),
    "unknown_result": (1, "unknown_result", "line 1: evaluation_result_id 'nope' is not a result"),
    "bad_interaction": (
        1,
        "invalid_instance",
        "line 1: does not conform to instance_level_eval.schema.json: at interaction_type",
    ),
}
UUID_OF = {name: f"00000000-0000-4000-8000-{index:012d}" for index, name in enumerate([*BAD_FILES, *BAD_RECORDS])}


def bad_path(name: str) -> str:
    return f"{BAD_NIGHT}/every_eval_ever/bad/{name}/{UUID_OF[name]}.json"


def write_bad_files(drops: Path) -> None:
    """Each a variant of the real qwen ARC-Easy file, as a series of its
    own (its model id names the variant)."""
    base = json.loads(QWEN.read_text(encoding="utf-8"))
    lines = lines_of(QWEN)
    assert len(lines) == 3

    def variant(name: str) -> dict[str, Any]:
        copy = json.loads(json.dumps(base))
        copy["model_info"]["id"] = f"bad/{name}"
        return copy

    def pair(name: str, aggregate: dict[str, Any], instance_lines: list[Any] | None, checksum: bool = True) -> Path:
        return write_pair(drops / bad_path(name).rsplit("/", 1)[0], UUID_OF[name], aggregate, instance_lines, checksum)

    doc = variant("no_version")
    del doc["schema_version"]
    pair("no_version", doc, lines)
    doc = variant("version_099")
    doc["schema_version"] = "0.9.9"
    pair("version_099", doc, lines)
    doc = variant("schema")
    doc["evaluation_results"][0]["metric_config"]["lower_is_better"] = "no"
    pair("schema", doc, lines)
    path = pair("truncated_aggregate", variant("truncated_aggregate"), lines)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    path = pair("nan_aggregate", variant("nan_aggregate"), lines)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["evaluation_results"][0]["score_details"]["score"] = float("nan")  # json writes a bare NaN
    path.write_text(json.dumps(doc), encoding="utf-8")
    path = pair("missing_instances", variant("missing_instances"), lines)
    instance_file(path).unlink()
    path = pair("truncated_instances", variant("truncated_instances"), lines)
    text = instance_file(path).read_text(encoding="utf-8")
    instance_file(path).write_text(text[: len(text) - 40], encoding="utf-8")
    path = pair("short_instances", variant("short_instances"), lines, checksum=False)
    instance_file(path).write_text("".join(json.dumps(line) + "\n" for line in lines[:2]), encoding="utf-8")
    doc = variant("repeated_result")
    doc["evaluation_results"].append(doc["evaluation_results"][0])
    pair("repeated_result", doc, lines)

    def with_line(index: int, change: Any) -> list[Any]:
        changed = json.loads(json.dumps(lines))
        changed[index] = change(changed[index])
        return changed

    pair("bad_line", variant("bad_line"), with_line(1, lambda line: json.dumps(line)[:60]))
    pair(
        "nan_score",
        variant("nan_score"),
        with_line(1, lambda line: json.dumps(line | {"evaluation": line["evaluation"] | {"score": float("nan")}})),
    )
    pair(
        "text_score",
        variant("text_score"),
        with_line(2, lambda line: line | {"evaluation": line["evaluation"] | {"score": "0.5"}}),
    )
    pair("duplicate", variant("duplicate"), [*lines, lines[0]])
    pair(
        "unknown_result", variant("unknown_result"), with_line(0, lambda line: line | {"evaluation_result_id": "nope"})
    )
    pair("bad_interaction", variant("bad_interaction"), with_line(0, lambda line: line | {"interaction_type": "chat"}))


RERUN_UUID = "11111111-1111-4111-8111-111111111111"
RERUN = f"{NIGHT_3}/every_eval_ever/ai2_arc/ollama/qwen2.5-0.5b/{RERUN_UUID}.json"


def write_rerun(drops: Path) -> None:
    """The qwen ARC-Easy run again on night 3: the first two samples swap
    their outcome (the mean, 1/3, stays: the aggregate's score is the real
    one)."""
    lines = lines_of(QWEN)
    for line in lines[:2]:
        correct = not line["evaluation"]["is_correct"]
        line["evaluation"] |= {"is_correct": correct, "score": 1.0 if correct else 0.0}
    write_pair((drops / RERUN).parent, RERUN_UUID, json.loads(QWEN.read_text(encoding="utf-8")), lines)


def write_hostile_night(drops: Path) -> None:
    """This module's files of the session's hostile night (conftest,
    ``hostile_imports``): the rerun and the bad files."""
    write_rerun(drops)
    write_bad_files(drops)


@pytest.fixture(scope="module")
def night(hostile_imports):
    """The rerun and the bad files, delivered after every imported tool's
    good fixtures (the converted and committed files among them): the
    session's hostile night, beside the other import modules' bad files."""
    return hostile_imports.wh, hostile_imports.wh.exit_code, hostile_imports.err


def drop_path(aggregate: Path) -> str:
    if aggregate.is_relative_to(CONVERTED):
        return f"{NIGHT_1}/every_eval_ever/{aggregate.relative_to(CONVERTED).as_posix()}"
    return f"{NIGHT_2}/every_eval_ever/{aggregate.relative_to(COMMITTED).as_posix()}"


GOOD = [p for p in aggregates_in(CONVERTED) + aggregates_in(COMMITTED) if p.name != OLD_VERSION]


# ---------------------------------------------------------------- the fixtures


def test_the_fixtures_are_what_evalevals_converters_wrote():
    runs = json.loads((EEE / "converted" / "runs.json").read_text(encoding="utf-8"))
    assert runs["commit"] == "9bce4136e789ec006c62582f5f9d107d20f8b398"
    libraries = defaultdict(int)
    for path in aggregates_in(CONVERTED):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["schema_version"] == reader.KNOWN_VERSIONS[0] == exchange.schema_version()
        libraries[document["eval_library"]["name"]] += 1
        detail = document.get("detailed_evaluation_results")
        if detail:  # the converters' own checksum and row count
            data = instance_file(path).read_bytes()
            assert hashlib.sha256(data).hexdigest() == detail["checksum"]
            assert len(data.splitlines()) == detail["total_rows"]
    assert libraries == {"lm_eval": 2, "inspect": 4}
    assert json.loads((COMMITTED / OLD_VERSION).read_text(encoding="utf-8"))["schema_version"] == "0.2.0"


def test_evalevals_converters_write_null_optional_fields_the_reader_takes_as_absent():
    # the converters' instance lines carry "evaluation_result_id": null,
    # which the schema's type refuses and EvalEval's validator accepts
    line = lines_of(QWEN)[0]
    assert line["evaluation_result_id"] is None
    assert reader.schema_violation(line, reader.INSTANCE_SCHEMA) is None
    assert "a required field is null" in reader.schema_violation(
        line | {"evaluation": {"score": None, "is_correct": True}}, reader.INSTANCE_SCHEMA
    )


# ---------------------------------------------------------------- figures


def set_scores(wh: Warehouse, path: str) -> list[dict[str, Any]]:
    return wh.dicts("select * from marts.every_eval_ever_set_scores where set_id = ? order by result_index", [path])


@pytest.mark.parametrize("aggregate", GOOD, ids=lambda p: p.parent.parent.parent.name)
def test_each_result_is_the_files_figure_and_its_instances_mean(imported_warehouse, aggregate):
    wh = imported_warehouse
    document = json.loads(aggregate.read_text(encoding="utf-8"))
    lines = lines_of(aggregate)
    rows = set_scores(wh, drop_path(aggregate))
    assert len(rows) == len(document["evaluation_results"])
    for row, result in zip(rows, document["evaluation_results"], strict=True):
        details = result["score_details"]
        uncertainty = details.get("uncertainty") or {}
        assert row["scorer"] == (result.get("evaluation_result_id") or result["evaluation_name"])
        assert row["evaluation_name"] == result["evaluation_name"]
        assert row["tool_reported_value"] == details["score"]
        assert row["tool_std_error"] == (uncertainty.get("standard_error") or {}).get("value")
        assert row["tool_num_samples"] == uncertainty.get("num_samples")
        assert row["lower_is_better"] is result["metric_config"]["lower_is_better"]
        if lines:  # every line of these files scores the aggregate's one result
            scores = [line["evaluation"]["score"] for line in lines]
            assert row["value"] == pytest.approx(sum(scores) / len(scores), abs=1e-9)
            assert row["n_samples"] == len({line["sample_id"] for line in lines})
            assert row["agrees_with_tool"] is (abs(row["value"] - details["score"]) <= 1e-9)
        else:  # aggregate only: the reported figure, nothing computed
            assert row["value"] is None and row["agrees_with_tool"] is None


def test_the_converters_own_means_agree_and_a_file_that_contradicts_itself_is_flagged(imported_warehouse):
    wh, code = imported_warehouse, imported_warehouse.exit_code
    verdicts = dict(wh.query("select set_id, agrees_with_tool from marts.eval_set_scores where value is not null"))
    converted = [drop_path(p) for p in aggregates_in(CONVERTED) if lines_of(p)]
    assert len(converted) == 4 and all(verdicts[path] is True for path in converted)
    # the skill's reference file reports 0.75 over one instance scored 1.0
    document = json.loads(DEMO.read_text(encoding="utf-8"))
    assert document["evaluation_results"][0]["score_details"]["score"] == 0.75
    assert [line["evaluation"]["score"] for line in lines_of(DEMO)] == [1.0]
    assert verdicts[drop_path(DEMO)] is False
    assert code == cli.EXIT_REJECTED


def test_the_history_holds_each_result_computed_or_as_reported(imported_warehouse):
    wh = imported_warehouse
    for aggregate in GOOD:
        document = json.loads(aggregate.read_text(encoding="utf-8"))
        lines = lines_of(aggregate)
        history = dict(
            wh.query(
                "select metric, metric_value from marts.history_set_metrics where set_id = ?", [drop_path(aggregate)]
            )
        )
        [result] = document["evaluation_results"]
        name = result.get("evaluation_result_id") or result["evaluation_name"]
        if lines:
            scores = [line["evaluation"]["score"] for line in lines]
            assert history[name] == pytest.approx(sum(scores) / len(scores), abs=1e-9)
            usage = [line["token_usage"] for line in lines if line.get("token_usage")]
            if usage:
                tokens = [u["input_tokens"] + u["output_tokens"] for u in usage]
                assert history["tokens_per_sample"] == pytest.approx(sum(tokens) / len(tokens), abs=1e-9)
        else:
            assert history == {name: result["score_details"]["score"]}


@pytest.mark.parametrize("aggregate", [p for p in GOOD if lines_of(p)], ids=lambda p: p.parent.parent.parent.name)
def test_every_run_and_instance_field_is_the_files(imported_warehouse, aggregate):
    wh = imported_warehouse
    path = drop_path(aggregate)
    document = json.loads(aggregate.read_text(encoding="utf-8"))
    lines = lines_of(aggregate)
    [run] = wh.dicts("select * from marts.eval_runs where set_id = ?", [path])
    [own] = wh.dicts("select * from marts.every_eval_ever_runs where set_id = ?", [path])
    dataset = document["evaluation_results"][0]["source_data"]["dataset_name"]
    model = document["model_info"]["id"]
    assert run["series_id"] == f"every_eval_ever:{dataset}:{model}"
    assert (run["tool"], run["tool_version"], run["task"], run["model"], run["run_id"]) == (
        "every_eval_ever",
        document["schema_version"],
        dataset,
        model,
        document["evaluation_id"],
    )
    assert run["is_complete"] is True and run["status"] is None
    assert int(run["created_at"].timestamp()) == int(float(document["evaluation_timestamp"]))
    assert (own["eval_library"], own["eval_library_version"]) == (
        document["eval_library"]["name"],
        document["eval_library"]["version"],
    )
    assert own["source_name"] == document["source_metadata"]["source_name"]
    assert (
        own["instance_total_rows"] == document["detailed_evaluation_results"]["total_rows"] == own["n_instance_lines"]
    )
    assert run["n_samples"] == len({line["sample_id"] for line in lines})
    items = {r["line_number"]: r for r in wh.dicts("select * from marts.eval_item_scores where set_id = ?", [path])}
    assert sorted(items) == list(range(1, len(lines) + 1))
    for number, line in enumerate(lines, start=1):
        item = items[number]
        assert item["sample_id"] == line["sample_id"]
        assert item["epoch"] == int((line.get("metadata") or {}).get("epoch", 1))
        assert item["input"] == line["input"]["raw"]
        assert item["target"] == (line["input"]["reference"][0] if len(line["input"]["reference"]) == 1 else None)
        assert item["completion"] == "\n".join(line["output"]["raw"])
        assert item["value"] == line["evaluation"]["score"]
        assert item["is_pass"] is line["evaluation"]["is_correct"]
        assert item["error"] == line.get("error")
        latency = (line.get("performance") or {}).get("latency_ms")
        assert item["latency_sec"] == (None if latency is None else pytest.approx(latency / 1000))
        usage = line.get("token_usage") or {}
        assert (item["input_tokens"], item["output_tokens"]) == (usage.get("input_tokens"), usage.get("output_tokens"))


# ---------------------------------------------------------------- nights


def test_flips_between_two_nights_pair_each_sample(night):
    wh, _, _ = night
    before = {line["sample_id"]: line["evaluation"]["is_correct"] for line in lines_of(QWEN)}
    rerun = wh.drops / RERUN
    after = {line["sample_id"]: line["evaluation"]["is_correct"] for line in lines_of(rerun)}
    expected = {s: ("pass_to_fail" if before[s] else "fail_to_pass") for s in before if before[s] != after[s]}
    assert set(expected.values()) == {"pass_to_fail", "fail_to_pass"}
    got = dict(
        wh.query(
            "select query_id, transition from marts.history_flips where set_id = ? "
            "and transition in ('pass_to_fail', 'fail_to_pass')",
            [RERUN],
        )
    )
    assert got == expected
    [(series,)] = wh.query(
        "select distinct series_id from marts.history_set_metrics where set_id in (?, ?)", [RERUN, drop_path(QWEN)]
    )
    assert series == "every_eval_ever:ai2_arc:ollama/qwen2.5-0.5b"


# ---------------------------------------------------------------- bad input


def test_each_bad_file_is_a_clear_rejection_and_nothing_else_stops(night, hostile_imports):
    wh, code, err = night
    assert code == cli.EXIT_REJECTED
    files = dict(wh.query("select source_file, reject_reason from ops.rejected_files where is_latest"))
    files = {path: reason for path, reason in files.items() if path not in hostile_imports.of_others(__name__)}
    for name, words in BAD_FILES.items():
        assert words in files[bad_path(name)], (name, files.get(bad_path(name)))
        assert bad_path(name) in err
    old = f"{NIGHT_2}/every_eval_ever/{OLD_VERSION}"
    assert files[old] == "unknown Every Eval Ever schema_version '0.2.0' (read: 0.3.0)"
    assert len(files) == len(BAD_FILES) + 1
    published = {r[0] for r in wh.query("select set_id from marts.eval_runs")}
    assert {drop_path(p) for p in GOOD} | {RERUN} | {bad_path(n) for n in BAD_RECORDS} <= published


def test_each_bad_line_is_a_rejected_record_and_records_reconcile(night):
    wh, _, _ = night
    rows = {
        (r["source_file"], r["line_number"]): r
        for r in wh.dicts("select * from ops.rejected_rows where is_current and kind = ?", [KIND])
    }
    for name, (line, code, words) in BAD_RECORDS.items():
        row = rows[(bad_path(name), line)]
        assert row["reason"] == code and words in row["reason_detail"], (name, row["reason_detail"])
    assert len(rows) == len(BAD_RECORDS)
    reconciliation = {
        r["source_file"]: r for r in wh.dicts("select * from ops.file_reconciliation where kind = ?", [KIND])
    }
    for aggregate in GOOD:
        r = reconciliation.get(drop_path(aggregate))
        if lines_of(aggregate):
            assert r["n_raw_rows"] == len(lines_of(aggregate)) == r["n_scored_rows"] and r["n_rejected_rows"] == 0
    for name in BAD_RECORDS:
        r = reconciliation[bad_path(name)]
        assert r["n_rejected_rows"] == 1 and r["n_raw_rows"] == r["n_scored_rows"] + 1
    # the companion files are accounted for, read with their aggregate
    ignored = dict(wh.query("select source_file, reject_reason from ops.load_log where status = 'ignored'"))
    companion = drop_path(instance_file(QWEN))
    assert ignored[companion].startswith(f"read with {drop_path(QWEN)}")


def late_target(drops: Path) -> Path:
    return drops / NIGHT_1 / "every_eval_ever" / QWEN.relative_to(CONVERTED)


def deliver_early(drops: Path) -> None:
    """An aggregate whose instance file comes a night later (conftest,
    ``late_deliveries``)."""
    late_target(drops).parent.mkdir(parents=True)
    shutil.copyfile(QWEN, late_target(drops))


def deliver_late(drops: Path) -> None:
    shutil.copyfile(instance_file(QWEN), instance_file(late_target(drops)))


def test_an_instance_file_delivered_after_its_aggregate_makes_a_new_version(late_deliveries):
    early, late = (night.wh for night in late_deliveries)
    assert early.exit_code == cli.EXIT_REJECTED
    [(reason,)] = early.query("select reject_reason from ops.rejected_files where is_latest")
    assert reason.startswith(f"missing instance file {instance_file(QWEN).name}")
    assert late.exit_code == 0
    assert late.query("select count(*) from ops.rejected_files where is_latest") == [(0,)]
    [(n,)] = late.query("select n_instance_lines from marts.every_eval_ever_runs")
    assert n == len(lines_of(QWEN))


# ---------------------------------------------------------------- reports, viewer


def test_reports_and_the_viewer_show_a_set(night):
    wh, _, _ = night
    reports = list((wh.paths.reports_dir / "every_eval_ever" / NIGHT_3).rglob("*.md"))
    assert [p.stem for p in reports] == [RERUN_UUID]
    client = create_app(wh.paths.published_db).test_client()
    page = client.get("/set", query_string={"id": RERUN, "result": "fail"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    failing = sum(not line["evaluation"]["is_correct"] for line in lines_of(wh.drops / RERUN))
    scorer = json.loads(QWEN.read_text(encoding="utf-8"))["evaluation_results"][0]["evaluation_name"]
    assert text.count(f"</td><td>{scorer}</td>") == failing


# ---------------------------------------------------------------- round trip


def published(wh: Warehouse, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    with duckdb.connect(str(wh.paths.published_db), read_only=True) as con:
        cursor = con.execute(sql, params or [])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


@pytest.fixture(scope="module")
def round_trip(demo_warehouse, tmp_path_factory):
    """The bundled sample warehouse exported as Every Eval Ever files, each
    dropped on its set's own night into a new warehouse, and built."""
    first, code = demo_warehouse, demo_warehouse.exit_code
    assert first.paths.published_db.exists(), f"the sample build published nothing (exit {code})"
    out = tmp_path_factory.mktemp("exported")
    command = ["export", "--format", "every-eval-ever", "--db", str(first.paths.db_path)]
    command += ["--project-dir", str(first.paths.project_dir), "--out", str(out)]
    assert cli.main(command) == 0
    second = Warehouse(tmp_path_factory.mktemp("imported"))
    exported = {}
    for path in sorted((out / "data").glob("*/*/*/*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        details = document["source_metadata"]["additional_details"]
        target = second.drops / details["drop_date"] / "every_eval_ever" / path.relative_to(out).as_posix()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        if instance_file(path).exists():
            shutil.copyfile(instance_file(path), instance_file(target))
        exported[target.relative_to(second.drops).as_posix()] = (details["set_id"], document, lines_of(path))
    second.build(data_tests=False)
    return first, second, exported


def test_the_round_trip_imports_the_exported_figures(round_trip):
    first, second, exported = round_trip
    agents = {r["agent"] for r in published(first, "select distinct agent from marts.history_set_metrics")}
    assert "every_eval_ever" in agents and len(agents) >= 6  # every agent's sets went out
    assert second.query("select count(*) from ops.rejected_files where is_latest") == [(0,)]
    n_checked = n_computed = n_repeats = 0
    for path, (set_id, document, lines) in exported.items():
        repeats_before = n_repeats
        history = {
            r["metric"]: r["metric_value"]
            for r in published(
                first, "select metric, metric_value from marts.history_set_metrics where set_id = ?", [set_id]
            )
        }
        rows = {
            r["scorer"]: r
            for r in second.dicts("select * from marts.every_eval_ever_set_scores where set_id = ?", [path])
        }
        assert len(rows) == len(document["evaluation_results"])
        for result in document["evaluation_results"]:
            row = rows[result["evaluation_result_id"]]
            # the tool's figure on import is the first warehouse's own
            assert row["tool_reported_value"] == history[result["evaluation_result_id"]]
            n_checked += 1
            linked, seen = [], set()
            for line in lines:
                if line.get("evaluation_result_id") != result["evaluation_result_id"]:
                    continue
                metadata = line.get("metadata") or {}
                key = (line["sample_id"], metadata.get("epoch") or metadata.get("round") or "1")
                if key in seen:  # a repeated instance id: a rejected line (the resume agent's duplicates)
                    n_repeats += 1
                    continue
                seen.add(key)
                linked.append(line)
            if linked:
                scores = [line["evaluation"]["score"] for line in linked]
                assert row["value"] == pytest.approx(sum(scores) / len(scores), abs=1e-9)
                n_computed += 1
            else:
                assert row["value"] is None
        [run] = second.dicts("select * from marts.every_eval_ever_runs where set_id = ?", [path])
        assert run["model"] == document["model_info"]["id"]
        assert run["n_instance_lines"] + (n_repeats - repeats_before) == len(lines)
    assert n_checked > 50 and n_computed > 5
    rejected = second.query("select reason, count(*) from ops.rejected_rows where is_current group by reason")
    assert rejected == [("duplicate_instance", n_repeats)] and n_repeats > 0


def test_the_round_trip_keeps_series_and_flips(round_trip):
    _, second, exported = round_trip
    # an imported tool's run (Inspect AI's samples): a plain mean over its
    # lines, so the imported computation agrees with the exported figure
    inspect_sets = [p for p, (set_id, _, _) in exported.items() if "/inspect/" in set_id]
    assert len(inspect_sets) == 2
    verdicts = second.query(
        "select agrees_with_tool from marts.every_eval_ever_set_scores where set_id in (select unnest(?::varchar[])) "
        "and value is not null",
        [inspect_sets],
    )
    assert verdicts and all(v is True for (v,) in verdicts)
    [(n_series,)] = second.query(
        "select count(distinct series_id) from marts.every_eval_ever_runs where set_id in (select unnest(?::varchar[]))",
        [inspect_sets],
    )
    assert n_series == 1
    # the flips of the later night, judged by the headline (the first
    # result), pair each sample and epoch of the two exported files
    earlier, later = sorted(inspect_sets)
    [(headline,)] = second.query("select headline_scorer from marts.eval_runs where set_id = ?", [later])
    assert headline == exported[later][1]["evaluation_results"][0]["evaluation_result_id"]

    def outcomes(path: str) -> dict[tuple[str, str], bool]:
        return {
            (line["sample_id"], line["metadata"]["epoch"]): line["evaluation"]["is_correct"]
            for line in exported[path][2]
            if line.get("evaluation_result_id") == headline
        }

    before, after = outcomes(earlier), outcomes(later)
    expected = {
        k: ("pass_to_fail" if before[k] else "fail_to_pass") for k in before if k in after and before[k] != after[k]
    }
    assert expected
    got = {
        (query, round_): transition
        for query, round_, transition in second.query(
            "select query_id, round, transition from marts.history_flips where set_id = ? "
            "and transition in ('pass_to_fail', 'fail_to_pass')",
            [later],
        )
    }
    assert got == expected
