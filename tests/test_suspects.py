"""A model failure names the deliveries of tonight that the model read
(agent_eval.suspects), from dbt's run_results.json and manifest.json and
the manifest table of raw history."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import duckdb

from agent_eval import suspects

TONIGHT = datetime(2026, 11, 2, 1, 0)  # before the files the test writes now


def write_night(tmp_path, failed: dict[str, str]):
    """A target/ folder where the models ``failed`` (name -> path) errored,
    and a warehouse whose manifest loaded two engagement files and a resume
    file tonight, and a resume file the night before."""
    target = tmp_path / "target"
    target.mkdir()
    results = [
        {
            "unique_id": f"model.agent_eval.{name}",
            "status": "error",
            "message": f"Runtime Error in model {name} ({path})\n  Out of Memory Error: could not allocate"
            "\n  \n  Possible solutions:\n  * Reducing the number of threads",
        }
        for name, path in failed.items()
    ]
    results.append({"unique_id": "model.agent_eval.fine", "status": "success", "message": "OK"})
    results.append({"unique_id": "test.agent_eval.some_test", "status": "error", "message": "x"})
    (target / "run_results.json").write_text(json.dumps({"results": results}))
    nodes = {f"model.agent_eval.{name}": {"original_file_path": path} for name, path in failed.items()}
    (target / "manifest.json").write_text(json.dumps({"nodes": nodes}))
    db = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("create schema raw")
        con.execute(
            "create table raw.raw_drop_files (source_file varchar, kind varchar, status varchar, loaded_at timestamp)"
        )
        con.executemany(
            "insert into raw.raw_drop_files values (?, ?, ?, ?)",
            [
                ("2026-11-01/resume_agent_old.csv", "resume_agent", "loaded", datetime(2026, 11, 1, 1, 0)),
                ("2026-11-02/resume_agent_new.csv", "resume_agent", "loaded", TONIGHT),
                ("2026-11-02/resume_agent_bad.csv", "resume_agent", "rejected", TONIGHT),
                ("2026-11-02/engagement/r1/expected.json", "engagement_expected", "loaded", TONIGHT),
                ("2026-11-02/engagement/r1/a1/actions.jsonl", "engagement_actions", "loaded", TONIGHT),
            ],
        )
    return target, db


def test_a_failed_agent_model_names_the_one_delivery_of_its_agent_loaded_tonight(tmp_path):
    target, db = write_night(tmp_path, {"resume_item_scores": "models/marts/resume_agent/resume_item_scores.sql"})
    [failed] = suspects.failed_models(target, db, TONIGHT)
    assert failed.name == "resume_item_scores" and failed.agent == "resume_agent"
    assert failed.suspects == ("2026-11-02/resume_agent_new.csv",)
    assert failed.message == "Out of Memory Error: could not allocate"
    text = "\n".join(suspects.describe([failed]))
    assert "agent-eval withdraw 2026-11-02/resume_agent_new.csv" in text


def test_an_agent_of_two_kinds_and_a_shared_model_list_every_delivery_they_read(tmp_path):
    target, db = write_night(
        tmp_path,
        {
            "engagement_run_scores": "models/marts/engagement/engagement_run_scores.sql",
            "history_flips": "models/marts/history/history_flips.sql",
        },
    )
    by_name = {f.name: f for f in suspects.failed_models(target, db, TONIGHT)}
    assert by_name["engagement_run_scores"].suspects == (
        "2026-11-02/engagement/r1/a1/actions.jsonl",
        "2026-11-02/engagement/r1/expected.json",
    )
    assert by_name["history_flips"].agent is None
    assert len(by_name["history_flips"].suspects) == 3


def test_no_failed_model_or_no_run_results_names_nothing(tmp_path):
    target, db = write_night(tmp_path, {})
    assert suspects.failed_models(target, db, TONIGHT) == []
    assert suspects.failed_models(tmp_path / "nowhere", db, TONIGHT) == []


def test_the_results_of_an_earlier_run_name_nothing(tmp_path):
    """A build that stops before dbt writes run_results.json (a parse
    error) must not blame last night's failures on tonight's files."""
    target, db = write_night(tmp_path, {"resume_item_scores": "models/marts/resume_agent/resume_item_scores.sql"})
    later = datetime.now(UTC).replace(tzinfo=None) + timedelta(hours=1)
    assert suspects.failed_models(target, db, later) == []
