"""`agent-eval export --format every-eval-ever`: the bundled sample drops,
built and published once for the module, exported as Every Eval Ever files
(docs/every-eval-ever.md) and checked against EvalEval's published JSON
Schemas (tests/fixtures/every_eval_ever/schema, vendored verbatim), against
the datastore's own checks (layout, companion file, score bounds) and
against the marts, read here by SQL."""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

import duckdb
import jsonschema
import pytest

from agent_eval import cli
from agent_eval.exchange import every_eval_ever
from conftest import FIXTURES

VENDORED = FIXTURES / "every_eval_ever" / "schema"
PACKAGED = Path(every_eval_ever.__file__).parents[1] / "schemas" / "every_eval_ever"
SCHEMAS = (every_eval_ever.AGGREGATE_SCHEMA, every_eval_ever.INSTANCE_SCHEMA)
# one set of the resume agent (items), of the Inspect AI import (items per
# sample, epoch and scorer) and of engagement (no items: aggregate only)
AGENTS = ("resume_agent", "inspect", "engagement")


def published(wh: Any, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    with duckdb.connect(str(wh.paths.published_db), read_only=True) as con:
        cursor = con.execute(sql, params or [])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def validator(name: str) -> jsonschema.protocols.Validator:
    """The vendored schema's validator, of the draft its $schema names."""
    schema = json.loads((VENDORED / name).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def export_command(wh: Any, out: Path, *sets: str) -> list[str]:
    return [
        "export",
        "--format",
        "every-eval-ever",
        "--db",
        str(wh.paths.db_path),
        "--project-dir",
        str(wh.paths.project_dir),
        "--out",
        str(out),
        *sets,
    ]


@pytest.fixture(scope="module")
def exported(demo_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    wh, code = demo_warehouse, demo_warehouse.exit_code
    assert wh.paths.published_db.exists(), f"the sample build published nothing (exit {code})"
    sets = {
        agent: published(
            wh,
            "select set_id from marts.history_set_metrics where agent = ? order by drop_date desc, set_id limit 1",
            [agent],
        )[0]["set_id"]
        for agent in AGENTS
    }
    out = tmp_path_factory.mktemp("every_eval_ever")
    assert cli.main(export_command(wh, out, *sets.values())) == 0
    by_set = {}
    for path in sorted((out / "data").glob("*/*/*/*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        by_set[document["source_metadata"]["additional_details"]["set_id"]] = (path, document)
    assert sorted(by_set) == sorted(sets.values())
    return {"wh": wh, "out": out, "sets": sets, "files": by_set}


def instance_lines(exported: dict[str, Any], agent: str) -> list[dict[str, Any]]:
    _, document = exported["files"][exported["sets"][agent]]
    samples = exported["out"] / document["detailed_evaluation_results"]["file_path"]
    return [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]


def test_the_packaged_schemas_are_the_vendored_published_ones():
    for name in SCHEMAS:
        assert (PACKAGED / name).read_bytes() == (VENDORED / name).read_bytes(), name
        assert json.loads((VENDORED / name).read_text(encoding="utf-8"))["version"] == "0.3.0"
    assert every_eval_ever.schema_version() == "0.3.0"
    assert "9bce4136e789ec006c62582f5f9d107d20f8b398" in (VENDORED / "README.md").read_text(encoding="utf-8")


def test_path_components_follow_the_datastore_rules():
    assert every_eval_ever.path_component("engagement:8b2d") == "engagement_8b2d"
    assert every_eval_ever.path_component("a/b") == "a_b"
    assert every_eval_ever.path_component("data") == "_data"
    assert every_eval_ever.path_component("CON") == "_CON"
    assert every_eval_ever.path_component("name. ") == "name"


def test_every_file_conforms_to_the_published_schemas(exported):
    aggregate_schema, instance_schema = (validator(name) for name in SCHEMAS)
    n_lines = 0
    for _, document in exported["files"].values():
        aggregate_schema.validate(document)
        detailed = document.get("detailed_evaluation_results")
        if detailed is None:
            continue
        for line in (exported["out"] / detailed["file_path"]).read_text(encoding="utf-8").splitlines():
            instance_schema.validate(json.loads(line))
            n_lines += 1
    assert n_lines > 0


def test_files_are_laid_out_as_the_datastore_checks_them(exported):
    """The datastore's own checks beyond the schema (its validator's path,
    companion and deployment checks): data/<collection>/<developer>/<model>/
    <uuid4>.json beside <uuid4>_samples.jsonl, the aggregate naming its
    companion by that path with the right row count and sha256, every line
    pointing back to the aggregate's evaluation and model."""
    out = exported["out"]
    for path, document in exported["files"].values():
        parts = path.relative_to(out).parts
        assert len(parts) == 5 and parts[0] == "data", parts
        assert uuid.UUID(path.stem).version == 4 and str(uuid.UUID(path.stem)) == path.stem
        assert document["model_info"]["additional_details"]["deployment_type"] == "unknown"
        detailed = document.get("detailed_evaluation_results")
        if detailed is None:
            assert not list(path.parent.glob(f"{path.stem}_samples.jsonl"))
            continue
        assert detailed["file_path"] == "/".join((*parts[:4], f"{path.stem}_samples.jsonl"))
        data = (out / detailed["file_path"]).read_bytes()
        assert detailed["hash_algorithm"] == "sha256" and detailed["checksum"] == hashlib.sha256(data).hexdigest()
        lines = [json.loads(line) for line in data.decode("utf-8").splitlines()]
        assert detailed["total_rows"] == len(lines) > 0
        assert {(line["evaluation_id"], line["model_id"]) for line in lines} == {
            (document["evaluation_id"], document["model_info"]["id"])
        }
        results = {r["evaluation_result_id"] for r in document["evaluation_results"]}
        assert {line["evaluation_result_id"] for line in lines} <= results


def test_scores_lie_within_the_bounds_they_declare(exported):
    """The datastore refuses a score outside [min_score, max_score]."""
    bounded = 0
    for _, document in exported["files"].values():
        for result in document["evaluation_results"]:
            config = result["metric_config"]
            if "min_score" not in config:
                assert config["additional_details"]["bounds_status"] == "unknown"
                continue
            low, high = (float(config[k]) for k in ("min_score", "max_score"))
            assert low <= result["score_details"]["score"] <= high, result["evaluation_result_id"]
            bounded += 1
    assert bounded > 0


def test_each_aggregate_result_is_the_marts_value(exported):
    wh = exported["wh"]
    for set_id, (_, document) in exported["files"].items():
        expected = {
            r["metric"]: r
            for r in published(
                wh,
                "select * from marts.history_set_metrics where set_id = ? and metric_value is not null",
                [set_id],
            )
        }
        results = {r["evaluation_result_id"]: r for r in document["evaluation_results"]}
        assert sorted(results) == sorted(expected), set_id
        for metric, row in expected.items():
            result = results[metric]
            assert result["score_details"]["score"] == row["metric_value"], (set_id, metric)
            assert result["metric_config"]["lower_is_better"] == (row["direction"] == "lower_is_better")
            uncertainty = result["score_details"]["uncertainty"]
            assert uncertainty["num_samples"] == row["n_obs"]
            if row["std_error"] is None:
                assert "standard_error" not in uncertainty
            else:
                assert uncertainty["standard_error"]["value"] == row["std_error"]
            if row["ci_method"] == "none":
                assert "confidence_interval" not in uncertainty
            else:
                interval = uncertainty["confidence_interval"]
                assert (interval["lower"], interval["upper"]) == (row["ci_low"], row["ci_high"])
                assert interval["confidence_level"] == 0.95


def test_resume_instances_are_the_sets_items(exported):
    set_id = exported["sets"]["resume_agent"]
    items = published(
        exported["wh"],
        "select query_id, accuracy_score, is_pass from marts.resume_item_scores where set_id = ? order by line_number",
        [set_id],
    )
    lines = instance_lines(exported, "resume_agent")
    assert len(lines) == len(items) > 0
    assert [(x["sample_id"], x["evaluation"]["score"], x["evaluation"]["is_correct"]) for x in lines] == [
        (i["query_id"], i["accuracy_score"], i["is_pass"]) for i in items
    ]
    assert {x["evaluation_result_id"] for x in lines} == {"accuracy_score"}


def test_inspect_instances_are_the_scored_samples_per_epoch_and_scorer(exported):
    set_id = exported["sets"]["inspect"]
    items = published(
        exported["wh"],
        "select sample_id, epoch, scorer, value, is_pass, target from marts.eval_item_scores "
        "where set_id = ? and value is not null",
        [set_id],
    )
    lines = instance_lines(exported, "inspect")
    assert len(lines) == len(items) > 0
    found = {
        (x["sample_id"], int(x["metadata"]["epoch"]), x["evaluation_result_id"]): (
            x["evaluation"]["score"],
            x["evaluation"]["is_correct"],
            x["input"]["reference"],
        )
        for x in lines
    }
    assert found == {
        (i["sample_id"], i["epoch"], i["scorer"]): (i["value"], i["is_pass"], [i["target"]]) for i in items
    }
    _, document = exported["files"][set_id]
    run = published(exported["wh"], "select model, tool from marts.eval_runs where set_id = ?", [set_id])[0]
    assert document["model_info"]["id"] == run["model"]
    assert document["eval_library"]["name"] == run["tool"]


def test_an_agent_without_items_gets_the_aggregate_only(exported):
    _, document = exported["files"][exported["sets"]["engagement"]]
    assert "detailed_evaluation_results" not in document
    assert document["evaluation_results"]


def test_exporting_the_same_published_file_again_writes_the_same_bytes(exported, tmp_path):
    wh = exported["wh"]
    again = every_eval_ever.export_sets(wh.paths.published_db, tmp_path, list(exported["sets"].values()))
    for written in again:
        for path in (written.aggregate, written.instances):
            if path is not None:
                relative = path.relative_to(tmp_path)
                assert path.read_bytes() == (exported["out"] / relative).read_bytes(), relative


def test_a_set_not_in_the_published_file_is_refused_in_one_line(exported, tmp_path, capsys):
    wh = exported["wh"]
    known = exported["sets"]["resume_agent"]
    code = cli.main(export_command(wh, tmp_path / "out", known, "2026-11-01/no_such_set.csv"))
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert err.count("\n") == 1 and "'2026-11-01/no_such_set.csv'" in err
    assert not (tmp_path / "out").exists()  # nothing written, not even the known set


def test_no_published_file_is_a_usage_error(tmp_path, capsys):
    code = cli.main(["export", "--format", "every-eval-ever", "--db", str(tmp_path / "none.duckdb")])
    assert code == cli.EXIT_USAGE
    assert "no published file" in capsys.readouterr().err
