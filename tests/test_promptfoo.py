"""promptfoo outputs in the warehouse, checked against what promptfoo itself
reports.

The outputs in tests/fixtures/promptfoo/drops were written by promptfoo
(0.118.0, and 0.57.1 for a results version 2 file) with its offline echo
provider (scripts/fixtures/promptfoo_outputs.py), and
tests/fixtures/promptfoo/expected.json copies what promptfoo wrote in them
(each column's metrics, each result's outcome): every expected figure below
comes from there, none from this warehouse. The bad outputs are made by
code from the real ones."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from agent_eval import cli
from agent_eval.viewer import create_app
from conftest import FIXTURES, IMPORTED_MOVES, IMPORTS, PROJECT_DIR, Warehouse

PROMPTFOO = FIXTURES / "promptfoo"
EXPECTED = json.loads((PROMPTFOO / "expected.json").read_text(encoding="utf-8"))["files"]
NIGHT_1 = "drops/2026-11-01/promptfoo/greetings.json"
NIGHT_2 = "drops/2026-11-02/promptfoo/greetings.json"
JSONL = "drops/2026-11-03/promptfoo/greetings.jsonl"
V2 = "drops/2026-11-04/promptfoo/greetings_v2.json"
BAD_NIGHT = "2026-11-05"
BAD = {
    "no_version": f"{BAD_NIGHT}/promptfoo/no_version.json",
    "version": f"{BAD_NIGHT}/promptfoo/version_99.json",
    "truncated": f"{BAD_NIGHT}/promptfoo/truncated.json",
    "not_object": f"{BAD_NIGHT}/promptfoo/a_list.json",
    "nan": f"{BAD_NIGHT}/promptfoo/nan_score.json",
    "text_score": f"{BAD_NIGHT}/promptfoo/text_score.json",
    "duplicate": f"{BAD_NIGHT}/promptfoo/duplicate_result.json",
    "bad_line": f"{BAD_NIGHT}/promptfoo/bad_line.jsonl",
    # not bad: promptfoo's GradingResult.assertion may be null
    "unnamed": f"{BAD_NIGHT}/promptfoo/unnamed_assertion.json",
    # not bad either: a finite score past any decimal sum
    "huge_score": f"{BAD_NIGHT}/promptfoo/huge_score.json",
}
HUGE_SCORE = 1e30
UNNAMED_RESULT = 2


# the version 2 output continues the same series (same description,
# providers and prompts); the tests put it before the two nights, so that
# night 2 stays the latest set of its series (history_flips)
MOVED = {V2: IMPORTED_MOVES[f"promptfoo/{V2}"]}


def path_of(fixture_path: str) -> str:
    return MOVED.get(fixture_path) or fixture_path.removeprefix("drops/")


def provider_label(provider) -> str:
    return provider if isinstance(provider, str) else provider.get("label") or provider["id"]


def n_tests(metrics: dict) -> int:
    return metrics["testPassCount"] + metrics["testFailCount"] + metrics.get("testErrorCount", 0)


def write_bad_outputs(drops: Path) -> None:
    folder = drops / BAD_NIGHT / "promptfoo"
    folder.mkdir(parents=True)
    text = (PROMPTFOO / NIGHT_1).read_text(encoding="utf-8")
    output = json.loads(text)

    def variant(description: str) -> dict:
        copy = json.loads(text)
        copy["config"]["description"] = description  # a series of its own
        return copy

    no_version = variant("bad: no version")
    del no_version["results"]["version"]
    (drops / BAD["no_version"]).write_text(json.dumps(no_version), encoding="utf-8")
    version = variant("bad: version 99")
    version["results"]["version"] = 99
    (drops / BAD["version"]).write_text(json.dumps(version), encoding="utf-8")
    (drops / BAD["truncated"]).write_text(text[: len(text) // 2], encoding="utf-8")
    (drops / BAD["not_object"]).write_text(json.dumps(output["results"]["results"]), encoding="utf-8")
    nan = variant("bad: NaN score")
    nan["results"]["results"][3]["score"] = float("nan")  # json writes a bare NaN token
    (drops / BAD["nan"]).write_text(json.dumps(nan), encoding="utf-8")
    text_score = variant("bad: text score")
    text_score["results"]["results"][4]["score"] = "0.5"
    (drops / BAD["text_score"]).write_text(json.dumps(text_score), encoding="utf-8")
    duplicate = variant("bad: duplicate")
    duplicate["results"]["results"].append(duplicate["results"]["results"][0])
    (drops / BAD["duplicate"]).write_text(json.dumps(duplicate), encoding="utf-8")
    unnamed = variant("odd: an assertion without type or metric")
    unnamed["results"]["results"][UNNAMED_RESULT]["gradingResult"]["componentResults"][0]["assertion"] = None
    (drops / BAD["unnamed"]).write_text(json.dumps(unnamed), encoding="utf-8")
    huge = variant("odd: a score of 1e30")
    huge["results"]["results"][0]["score"] = HUGE_SCORE
    (drops / BAD["huge_score"]).write_text(json.dumps(huge), encoding="utf-8")
    lines = (PROMPTFOO / JSONL).read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5][:40]  # a line cut short
    (drops / BAD["bad_line"]).write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def night(module_built):
    """The bad outputs, a night after every imported tool's good fixtures."""
    wh, _ = module_built(IMPORTS)
    write_bad_outputs(wh.drops)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = wh.build()
    return wh, code, err.getvalue()


def set_of(wh: Warehouse, path: str, provider: str, prompt: str) -> str:
    [(found,)] = wh.query(
        "select set_id from marts.promptfoo_runs where source_file = ? and model = ? and prompt = ?",
        [path_of(path), provider, prompt],
    )
    return found


def figure(wh: Warehouse, set_id: str, scorer: str, metric: str) -> tuple:
    [row] = wh.query(
        "select value, tool_reported_value, agrees_with_tool from marts.eval_set_scores "
        "where set_id = ? and scorer = ? and metric = ?",
        [set_id, scorer, metric],
    )
    return row


def test_the_fixtures_are_what_promptfoo_wrote():
    night_1 = json.loads((PROMPTFOO / NIGHT_1).read_text(encoding="utf-8"))
    assert night_1["results"]["version"] == 3 and night_1["metadata"]["promptfooVersion"] == "0.118.0"
    v2 = json.loads((PROMPTFOO / V2).read_text(encoding="utf-8"))
    assert v2["results"]["version"] == 2 and "table" in v2["results"]
    # repeats: each its own testIdx, the same vars
    by_test = defaultdict(set)
    for result in night_1["results"]["results"]:
        by_test[json.dumps(result["vars"], sort_keys=True)].add(result["testIdx"])
    assert {len(idx) for idx in by_test.values()} == {2}


@pytest.mark.parametrize("path", [NIGHT_1, NIGHT_2, V2])
def test_each_column_figure_equals_promptfoos_own_metrics(imported_warehouse, path):
    wh = imported_warehouse
    checked = 0
    for prompt in EXPECTED[path]["prompts"]:
        name = prompt.get("label") or prompt.get("display") or prompt["raw"]
        set_id = set_of(wh, path, prompt["provider"], name)
        metrics = prompt["metrics"]
        value, reported, agrees = figure(wh, set_id, "overall", "pass_rate")
        assert value == pytest.approx(metrics["testPassCount"] / n_tests(metrics), abs=1e-9)
        assert reported == pytest.approx(value, abs=1e-9) and agrees is True
        value, _, agrees = figure(wh, set_id, "overall", "mean")
        assert value == pytest.approx(metrics["score"] / n_tests(metrics), abs=1e-9) and agrees is True
        for name, total in (metrics.get("namedScores") or {}).items():
            count = (metrics.get("namedScoresCount") or {}).get(name)
            if count is None:  # version 2 reports no counts
                continue
            value, _, agrees = figure(wh, set_id, name, "mean")
            assert value == pytest.approx(total / count, abs=1e-9), (set_id, name)
            assert agrees is True
            checked += 1
        [(n_records, n_passed, n_errored)] = wh.query(
            "select n_sample_records, n_passed, n_errored from marts.promptfoo_runs where set_id = ?", [set_id]
        )
        assert (n_records, n_passed, n_errored) == (
            n_tests(metrics),
            metrics["testPassCount"],
            metrics.get("testErrorCount", 0),
        )
    assert len(EXPECTED[path]["prompts"]) == 4
    assert checked >= (16 if path != V2 else 0)


def test_a_jsonl_output_scores_as_the_same_run_written_as_json(imported_warehouse):
    wh = imported_warehouse
    lines = EXPECTED[JSONL]["lines"]
    assert len(lines) == EXPECTED[JSONL]["n_lines"] == EXPECTED[NIGHT_2]["n_results"]
    for prompt in EXPECTED[NIGHT_2]["prompts"]:
        set_id = set_of(wh, JSONL, prompt["provider"], prompt["label"])
        own = [
            line
            for line in lines
            if provider_label(line["provider"]) == prompt["provider"] and line["prompt_label"] == prompt["label"]
        ]
        value, reported, agrees = figure(wh, set_id, "overall", "pass_rate")
        assert value == pytest.approx(sum(line["success"] for line in own) / len(own), abs=1e-12)
        assert value == pytest.approx(prompt["metrics"]["testPassCount"] / n_tests(prompt["metrics"]), abs=1e-9)
        assert reported is None and agrees is None  # a .jsonl carries no metrics of its own


@pytest.mark.parametrize("path", [NIGHT_1, NIGHT_2, JSONL])
def test_every_result_and_assertion_is_promptfoos_verdict(imported_warehouse, path):
    wh = imported_warehouse
    results = EXPECTED[path].get("results") or EXPECTED[path]["lines"]
    rows = wh.dicts(
        "select i.test_idx, r.model, r.prompt, i.scorer, i.value, i.is_pass, i.error from marts.promptfoo_item_scores i "
        "join marts.promptfoo_runs r using (set_id) where r.source_file = ?",
        [path_of(path)],
    )
    overall, components = {}, defaultdict(list)
    for r in rows:
        key = (r["test_idx"], r["model"], r["prompt"])
        if r["scorer"] == "overall":
            overall[key] = r
        else:
            components[key].append((r["is_pass"], round(r["value"], 12)))
    assert len(overall) == len(results)
    for result in results:
        key = (result["testIdx"], provider_label(result["provider"]), result["prompt_label"])
        row = overall[key]
        assert row["is_pass"] is result["success"]
        assert row["value"] == pytest.approx(result["score"], abs=1e-12)
        assert (row["error"] is not None) == (result["failureReason"] == 2)
        scores = [round(score, 12) for score in result.get("component_score") or []]
        assert sorted(components[key]) == sorted(zip(result.get("component_pass") or [], scores, strict=True))


def test_the_repeats_of_a_test_are_one_sample_with_epochs(imported_warehouse):
    wh = imported_warehouse
    results = EXPECTED[NIGHT_1]["results"]
    tests = defaultdict(set)
    for result in results:
        tests[json.dumps(result["vars"], sort_keys=True, ensure_ascii=False)].add(result["testIdx"])
    for set_id, n_samples, n_epochs in wh.query(
        "select set_id, n_samples, n_epochs from marts.promptfoo_runs where source_file = ?", [path_of(NIGHT_1)]
    ):
        assert n_samples == len(tests)
        assert n_epochs == max(len(idx) for idx in tests.values()) == 2
        for idx in tests.values():
            found = wh.query(
                "select distinct sample_id, epoch, test_idx from marts.promptfoo_item_scores "
                "where set_id = ? and test_idx in (select unnest(?::integer[])) order by test_idx",
                [set_id, sorted(idx)],
            )
            assert len({s for s, _, _ in found}) == 1  # one sample
            assert [e for _, e, _ in found] == [1, 2]  # its repeats, in testIdx order


def outcomes(results: list[dict]) -> dict[tuple, bool]:
    """(provider, prompt, vars, repeat) -> success, the repeat numbered in testIdx order."""
    seen = defaultdict(int)
    found = {}
    for result in sorted(results, key=lambda r: r["testIdx"]):
        test = (provider_label(result["provider"]), result["prompt_label"], json.dumps(result["vars"], sort_keys=True))
        seen[test] += 1
        found[(*test, seen[test])] = result["success"]
    return found


def test_flips_between_the_two_nights_pair_each_test_and_repeat(imported_warehouse):
    wh = imported_warehouse
    before, after = outcomes(EXPECTED[NIGHT_1]["results"]), outcomes(EXPECTED[NIGHT_2]["results"])
    expected = {key: ("pass_to_fail" if before[key] else "fail_to_pass") for key in before if before[key] != after[key]}
    assert set(expected.values()) == {"pass_to_fail", "fail_to_pass"}  # the fixture's nights differ both ways
    got = {}
    for model, prompt, vars_json, epoch, transition in wh.query(
        "select r.model, r.prompt, i.vars_json, i.epoch, f.transition from marts.history_flips f "
        "join marts.promptfoo_runs r on r.set_id = f.set_id "
        "join marts.promptfoo_item_scores i on i.set_id = f.set_id and i.sample_id = f.query_id "
        "and cast(i.epoch as varchar) = f.round and i.scorer = 'overall' "
        "where r.source_file = ? and f.transition in ('pass_to_fail', 'fail_to_pass')",
        [path_of(NIGHT_2)],
    ):
        got[(model, prompt, json.dumps(json.loads(vars_json), sort_keys=True), epoch)] = transition
    assert got == expected


def test_records_reconcile_results_scored_plus_rejected(night):
    wh, _, _ = night
    rows = {
        r["source_file"]: r for r in wh.dicts("select * from ops.file_reconciliation where kind = 'promptfoo_output'")
    }
    for path, facts in EXPECTED.items():
        r = rows[path_of(path)]
        n = facts.get("n_results") or facts["n_lines"]
        assert r["n_raw_rows"] == n == r["n_scored_rows"] + r["n_rejected_rows"]
    for path in (BAD["nan"], BAD["text_score"], BAD["duplicate"], BAD["bad_line"]):
        r = rows[path]
        assert r["n_rejected_rows"] == 1 and r["n_raw_rows"] == r["n_scored_rows"] + 1


def test_each_bad_output_is_a_clear_rejection_and_nothing_else_stops(night):
    wh, code, err = night
    assert code == cli.EXIT_REJECTED
    files = dict(wh.query("select source_file, reject_reason from ops.rejected_files where is_latest"))
    assert "results.version is missing" in files[BAD["no_version"]]
    assert files[BAD["version"]].startswith("unknown promptfoo output version 99")
    assert files[BAD["truncated"]].startswith("not valid JSON")
    assert files[BAD["not_object"]].startswith("not a promptfoo output")
    rows = {
        (r["source_file"], r["reason"]): r["reason_detail"]
        for r in wh.dicts("select * from ops.rejected_rows where is_current and kind = 'promptfoo_output'")
    }
    assert "results[3]: score nan is not a finite number" in rows[(BAD["nan"], "invalid_score")]
    assert "results[4]: score '0.5'" in rows[(BAD["text_score"], "invalid_score")]
    assert "also record 1" in rows[(BAD["duplicate"], "duplicate_result")]
    assert "line 6" in rows[(BAD["bad_line"], "invalid_json")]
    for path in (BAD["no_version"], BAD["truncated"]):
        assert path in err
    # every good output is published, and the rest of each output with a bad record
    published = {r[0] for r in wh.query("select distinct source_file from marts.promptfoo_runs")}
    assert {path_of(p) for p in EXPECTED} | {
        BAD["nan"],
        BAD["text_score"],
        BAD["duplicate"],
        BAD["bad_line"],
    } <= published


def test_an_assertion_without_type_or_metric_is_the_scorer_assertion(night):
    """A component whose assertion is null has no name of its own: it is
    the scorer `assertion` (SPEC 7.3), its verdict promptfoo's."""
    wh, _, _ = night
    result = json.loads((PROMPTFOO / NIGHT_1).read_text(encoding="utf-8"))["results"]["results"][UNNAMED_RESULT]
    component = result["gradingResult"]["componentResults"][0]
    found = wh.query(
        "select scorer, is_pass, value from marts.promptfoo_item_scores"
        " where set_id = ? and scorer not in (select scorer from marts.promptfoo_item_scores where set_id = ?)",
        [f"{BAD['unnamed']}#{result['promptIdx']}", f"{path_of(NIGHT_1)}#{result['promptIdx']}"],
    )
    assert found == [("assertion", component["pass"], float(component["score"]))]


def test_a_score_past_the_exact_mean_range_is_averaged_not_a_stopped_night(night):
    """The exact mean sums decimals, which hold values under 1e18: a set
    with a larger score has the double mean of its scores (decision 0017)."""
    wh, _, _ = night
    results = json.loads((PROMPTFOO / NIGHT_1).read_text(encoding="utf-8"))["results"]["results"]
    column = results[0]["promptIdx"]
    scores = [HUGE_SCORE] + [r["score"] for r in results[1:] if r["promptIdx"] == column]
    value, _, _ = figure(wh, f"{BAD['huge_score']}#{column}", "overall", "mean")
    assert value == pytest.approx(sum(scores) / len(scores), rel=1e-12)


def test_reports_and_the_viewer_show_each_column(imported_warehouse):
    wh = imported_warehouse
    set_ids = [
        r[0] for r in wh.query("select set_id from marts.promptfoo_runs where source_file = ?", [path_of(NIGHT_2)])
    ]
    assert len(set_ids) == 4
    reports = sorted(p.name for p in (wh.paths.reports_dir / "promptfoo" / "2026-11-02" / "promptfoo").glob("*.md"))
    assert len(reports) == 4 and all(name.startswith("greetings-") for name in reports)
    client = create_app(wh.paths.published_db).test_client()
    failing = wh.query(
        "select distinct test_idx from marts.promptfoo_item_scores where set_id = ? and scorer = 'overall' "
        "and not is_pass",
        [set_ids[0]],
    )
    page = client.get("/set", query_string={"id": set_ids[0], "scorer": "overall", "result": "fail"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "promptfoo reported" in text
    assert text.count("</td><td>overall</td>") == len(failing)  # one item row per failing result


# ---------------------------------------------------------------- the reader
# (no warehouse: what one result becomes in raw history)


def _one_result(**changes) -> dict:
    """The first result promptfoo wrote in night 2's output, changed."""
    output = json.loads((PROMPTFOO / NIGHT_2).read_text(encoding="utf-8"))
    result = output["results"]["results"][0]
    result.update(changes)
    return result


def _landed(tmp_path: Path, results: list[dict]) -> list[dict]:
    """The results written as `-o x.jsonl` writes them (json.dumps writes
    a bare NaN / Infinity token, as promptfoo's JSON.stringify cannot),
    read and landed; each landed record as strict JSON."""
    from agent_eval.agents.promptfoo import read_output
    from agent_eval.ingest.kinds import kind_named
    from agent_eval.ingest.parse import records_table

    path = tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in results), encoding="utf-8")
    _, records = read_output(path)
    table = records_table(records, kind_named("promptfoo_output"))

    def strict(token: str):
        raise AssertionError(f"a bare {token} token landed")

    return [json.loads(text, parse_constant=strict) for text in table.column("record_json").to_pylist()]


def test_a_result_lands_with_every_non_finite_number_as_a_string(tmp_path):
    nan, inf = float("nan"), float("inf")
    result = _one_result(latencyMs=nan, namedScores={"korean": inf, "other": -inf})
    result["vars"] = {"name": "Alice", "weight": nan}
    result["testCase"]["vars"] = result["vars"]
    (record,) = _landed(tmp_path, [result])
    assert record["latency_ms"] == "NaN"
    assert record["named_scores"] == {"korean": "Infinity", "other": "-Infinity"}
    assert record["vars"] == {"name": "Alice", "weight": "NaN"}
    # the identity hashes the vars as they landed (docs/promptfoo-outputs.md)
    identity = {"assert": result["testCase"]["assert"], "vars": {"name": "Alice", "weight": "NaN"}}
    text = json.dumps(identity, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    assert record["test_key"] == hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_the_repeats_of_a_test_share_the_hash_of_its_vars_and_asserts(tmp_path):
    first = _one_result(testIdx=0)
    repeat = _one_result(testIdx=1)
    other = _one_result(testIdx=2)
    other["testCase"]["vars"] = other["vars"] = {**first["vars"], "name": "Bob"}
    landed = _landed(tmp_path, [first, repeat, other])
    identity = {"assert": first["testCase"]["assert"], "vars": first["testCase"]["vars"]}
    text = json.dumps(identity, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    assert [r["test_key"] for r in landed[:2]] == [expected, expected]
    assert landed[2]["test_key"] != expected


def test_a_result_of_finite_numbers_is_encoded_once_and_never_walked(tmp_path, monkeypatch):
    """The exact reader's cost: a result holding no NaN or infinity is
    written as JSON once, by the reader, and not walked value by value."""
    from agent_eval.agents.promptfoo import duckdb_jsonl, reader

    monkeypatch.setattr(duckdb_jsonl, "read_by_duckdb", lambda *args: None)

    def walked(value):
        raise AssertionError("a result of finite numbers was walked")

    monkeypatch.setattr(reader, "_finite", walked)
    encoded = []
    real_dumps = json.dumps

    def counted(value, *args, **kwargs):
        encoded.append(value)
        return real_dumps(value, *args, **kwargs)

    monkeypatch.setattr(json, "dumps", counted)
    result = _one_result()
    (record,) = _landed(tmp_path, [result])
    encoded = [v for v in encoded if v is not result]  # _landed writing the file
    assert encoded == []
    assert record["output"] == result["response"]["output"]
    assert record["components"][0]["pass"] is result["gradingResult"]["componentResults"][0]["pass"]


def test_a_result_whose_assertions_are_not_a_list_is_rejected_alone(tmp_path):
    """gradingResult.componentResults is promptfoo's list of assertion
    verdicts; any other value rejects its result with the reason, and the
    results around it land."""
    from agent_eval.agents.promptfoo import read_output
    from agent_eval.ingest.kinds import kind_named
    from agent_eval.ingest.parse import records_table

    results = [_one_result(testIdx=index) for index in range(5)]
    for result, bad in zip(results[1:], (5, "pass", {"pass": True}, True), strict=True):
        result["gradingResult"]["componentResults"] = bad
    path = tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in results), encoding="utf-8")
    _, records = read_output(path)
    table = records_table(records, kind_named("promptfoo_output")).to_pylist()
    assert [(row["line_number"], row["reject_reason"]) for row in table] == [(1, None)] + [
        (line, f"invalid_score: line {line}: componentResults is not a list") for line in range(2, 6)
    ]


def test_staging_parses_each_record_once():
    """Staging's cost is parsing each record's JSON text: every member is
    taken by one json_extract with a list of paths, never by a path at a
    time (`rec ->> '$.x'` parses the whole record again for each field)."""
    sql = (PROJECT_DIR / "models" / "staging" / "promptfoo" / "stg_promptfoo__results.sql").read_text(encoding="utf-8")
    code = "\n".join(line.split("--")[0] for line in sql.splitlines())
    uses = re.findall(r"(\w+)\(\s*rec\b|\brec\s*(->>?)", code)
    assert uses == [("json_extract", "")]


# ---------------------------------------------------------------- the DuckDB reader of -o x.jsonl
# (agent_eval.agents.promptfoo.duckdb_jsonl: the exact reader's records, by
# DuckDB; every line it would read otherwise than Python goes to Python)


def _both_readers(path: Path, monkeypatch) -> tuple[list[dict], list[dict], list[int]]:
    """A .jsonl output landed by the reader (DuckDB first) and by the exact
    reader alone, each record's JSON parsed; and the lines the first handed
    to Python."""
    from agent_eval.agents.promptfoo import KINDS, duckdb_jsonl, reader
    from agent_eval.ingest import parse

    (kind,) = KINDS

    def rows(table) -> list[dict]:
        return [
            {**row, "record_json": None if row["record_json"] is None else json.loads(row["record_json"])}
            for row in table.to_pylist()
        ]

    in_python = []
    exact_lines = reader._line_records

    def counted(lines, header):
        lines = list(lines)
        in_python.extend(number for number, text in lines if text.strip())
        return exact_lines(lines, header)

    with monkeypatch.context() as patch:
        patch.setattr(reader, "_line_records", counted)
        header, landed = reader.read_output(path, kind)
        first = rows(parse.records_table(landed, kind))
    with monkeypatch.context() as patch:
        patch.setattr(duckdb_jsonl, "read_by_duckdb", lambda *args: None)
        exact_header, records = reader.read_output(path, kind)
        exact = rows(parse.records_table(records, kind))
    assert header == exact_header
    return first, exact, in_python


@pytest.mark.parametrize("final_newline", [True, False])
def test_duckdb_reads_promptfoos_jsonl_as_the_exact_reader_and_alone(tmp_path, monkeypatch, final_newline):
    text = (PROMPTFOO / JSONL).read_text(encoding="utf-8")
    assert text.endswith("\n")
    path = tmp_path / "greetings.jsonl"
    path.write_text(text if final_newline else text[:-1], encoding="utf-8")
    first, exact, in_python = _both_readers(path, monkeypatch)
    assert first == exact
    assert len(first) == EXPECTED[JSONL]["n_lines"]
    assert in_python == []  # promptfoo writes nothing DuckDB hands back


def _line(result: dict) -> str:
    return json.dumps(result, ensure_ascii=False)


def _hostile_lines() -> dict[str, str]:
    """Results DuckDB would read otherwise than Python, or the exact reader
    rejects, each as the text of one line (distinct testIdx each)."""
    lines: dict[str, str] = {}

    def add(name: str, result: dict | None = None, text: str | None = None) -> None:
        lines[name] = text if text is not None else _line(result)

    def one(**changes) -> dict:
        return _one_result(testIdx=100 + len(lines), **changes)

    add("nan_score", one(score=float("nan")))
    add("nan_in_vars", one(vars={"name": float("nan")}))
    add("lowercase_inf", text=_line(one(latencyMs=12345)).replace("12345", "inf"))
    add("infinity_in_named_scores", one(namedScores={"korean": float("-inf")}))
    add("trailing_comma", text=_line(one()).replace("}", ", }", 1))
    add("trailing_comma_in_a_list", text=_line(one(namedScores={"x": [1, 2]})).replace("[1, 2]", "[1, 2, ]"))
    add("exponent_past_a_double", text=_line(one(latencyMs=12345)).replace("12345", "1e400"))
    add("success_as_text", one(success="true"))
    add("score_as_text", one(score="0.5"))
    add("score_as_bool", one(score=True))
    add("cost_as_text", one(cost="1"))
    add("big_integer_score", one(score=12345678901234567890123))
    result = one()
    result["gradingResult"]["componentResults"] = "pass"
    add("assertions_not_a_list", result)
    result = one()
    result["gradingResult"]["componentResults"].append(5)
    add("an_assertion_not_an_object", result)
    result = one()
    result["gradingResult"]["componentResults"][0]["score"] = "high"
    add("an_assertion_score_as_text", result)
    result = one()
    result["gradingResult"]["componentResults"][0]["assertion"]["value"] = ["a", "b"]
    add("an_assertion_value_as_a_list", result)
    result = one()
    result["gradingResult"]["componentResults"][0]["assertion"] = None
    add("an_assertion_without_its_assertion", result)
    add("provider_as_number", one(provider=7))
    add("provider_as_text", one(provider="echo"))
    add("provider_label_empty", one(provider={"id": "echo", "label": ""}))
    add("provider_label_as_number", one(provider={"id": "echo", "label": 0}))
    add("prompt_label_empty", one(prompt={"raw": "hi", "label": "", "display": "Hi {{name}}"}))
    add("prompt_label_as_list", one(prompt={"raw": "hi", "label": []}))
    add("prompt_not_an_object", one(prompt="hi"))
    result = one()
    result["response"]["output"] = {"text": "hi", "n": 1}
    add("output_as_an_object", result)
    result = one()
    result["response"] = None
    add("no_response", result)
    result = one()
    del result["testCase"]["assert"]
    add("a_test_without_asserts", result)
    add("test_case_as_text", one(testCase="x", vars=None))
    add("test_case_null", one(testCase=None))
    add("vars_null", one(vars=None))
    add("tokens_only_in_the_response", one(tokenUsage=None))
    result = one()
    result["tokenUsage"] = {"prompt": 3, "completion": 4}
    add("tokens_without_the_graders", result)
    add("unicode_escapes", text=_line(one(vars={"name": "é \u2028 \U0001f600"})).replace("é", "\\u00e9"))
    add(
        "a_key_given_twice_in_vars",
        text=_line(one(vars={"name": "A"})).replace('"name": "A"', '"name": "A", "name": "B"'),
    )
    add("deep_nesting", text=_line(one(vars={"deep": 1})).replace('"deep": 1', '"deep": ' + "[" * 1200 + "]" * 1200))
    add("blank", text="")
    return lines


def test_duckdb_hands_every_line_it_would_read_otherwise_to_the_exact_reader(tmp_path, monkeypatch):
    """A file of promptfoo's results with, between them, every kind of line
    DuckDB's JSON reader would take otherwise than Python's (NaN, a
    trailing comma, a number past a double...), or the exact reader
    rejects: both readers land the same records."""
    good = [_line(_one_result(testIdx=index)) for index in range(6)]
    hostile = _hostile_lines()
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(good[:3] + list(hostile.values()) + good[3:]) + "\n", encoding="utf-8")
    first, exact, in_python = _both_readers(path, monkeypatch)
    assert [row["line_number"] for row in first] == [row["line_number"] for row in exact]
    for got, want in zip(first, exact, strict=True):
        assert got == want, f"line {want['line_number']}: {list(hostile)[want['line_number'] - 4]}"
    # DuckDB read the file, and its good results itself
    good_lines = {1, 2, 3, *range(len(hostile) + 4, len(hostile) + 7)}
    assert in_python and not good_lines & set(in_python)


@pytest.mark.parametrize(
    "name",
    [
        "duplicate_result",
        "no_integer_row",
        "carriage_returns",
        "byte_order_mark",
        "lone_surrogate",
        "key_given_twice",
        "not_json",
        "blanks",
    ],
)
def test_a_file_duckdb_cannot_read_as_python_does_is_read_by_the_exact_reader(tmp_path, monkeypatch, name):
    """Whole files the exact reader reads alone: two results in one place
    (the second's rejection names the first), a result without an integer
    testIdx, carriage returns, a byte order mark, a lone surrogate escape
    (DuckDB refuses it), a key given twice at a result's top level, a line
    that is not JSON, a line of blanks."""
    results = [_line(_one_result(testIdx=index)) for index in range(4)]
    if name == "duplicate_result":
        results.append(results[1])
    elif name == "no_integer_row":
        results.append(_line(_one_result(testIdx="7")))
    elif name == "lone_surrogate":
        results.append(json.dumps(_one_result(testIdx=9, vars={"name": "\ud800"})))  # the escape, as text
    elif name == "key_given_twice":
        results.append(_line(_one_result(testIdx=9, score=1)).replace('"score": 1', '"score": 1, "score": 0'))
    elif name == "not_json":
        results.append('{"testIdx": 9, "score": ')
    elif name == "blanks":
        results.insert(2, " \t ")
    separator = "\r\n" if name == "carriage_returns" else "\n"
    text = ("\ufeff" if name == "byte_order_mark" else "") + separator.join(results) + separator
    path = tmp_path / f"{name}.jsonl"
    path.write_text(text, encoding="utf-8")
    first, exact, in_python = _both_readers(path, monkeypatch)
    assert first == exact
    assert len(in_python) == len([line for line in results if line.strip()])
