"""Inputs that stopped or misled a night: decomposed Hangul (NFD) scored
differently from the same text in NFC, and an expectation file of
thousands of personas that ran the engagement models out of memory and
failed every later night. The corpus is tests/adversarial.py's
night-holds part."""

from __future__ import annotations

import unicodedata

import duckdb
import pytest

import adversarial
from agent_eval import cli, withdraw
from agent_eval.viewer import pages
from conftest import Warehouse


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("night_holds"))
    adversarial.write_night_holds_corpus(wh.drops)
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv("AGENT_EVAL_MAX_RECORD_MB", adversarial.EXPECTATION_LIMIT_MB)
    code = wh.build()
    monkeypatch.undo()
    return wh, code


def metrics_of(wh: Warehouse, set_id: str) -> dict[str, float]:
    return dict(
        wh.query(
            "select metric, estimate from marts.history_set_metrics where set_id = ? and estimate is not null",
            [set_id],
        )
    )


@pytest.mark.parametrize("nfc_file", sorted(adversarial.NFD_PAIRS))
def test_a_delivery_in_nfd_scores_exactly_as_the_same_delivery_in_nfc(night, nfc_file):
    wh, _ = night
    nfd_twin = adversarial.NFD_PAIRS[nfc_file]
    expected = metrics_of(wh, nfc_file)
    assert expected, f"no metrics for {nfc_file}"
    assert metrics_of(wh, nfd_twin) == expected


def test_the_load_log_says_which_files_were_not_nfc_and_names_them_in_nfc(night):
    wh, _ = night
    notes = dict(wh.query("select source_file, loader_note from ops.load_log where status = 'loaded'"))
    for nfc_file, nfd_twin in adversarial.NFD_PAIRS.items():
        assert unicodedata.is_normalized("NFC", nfd_twin)
        assert nfd_twin in notes, sorted(notes)
        assert "file name not in Unicode NFC" in notes[nfd_twin] and "text not in Unicode NFC" in notes[nfd_twin]
        assert not notes[nfc_file] or "NFC" not in notes[nfc_file]


def test_raw_history_keeps_the_text_as_delivered(night):
    wh, _ = night
    nfd_twin = adversarial.NFD_PAIRS[f"{adversarial.NIGHT}/recruit_agent_채용.jsonl"]
    texts = [
        r[0] for r in wh.query("select record_json from raw.raw_recruit_agent_rows where source_file = ?", [nfd_twin])
    ]
    assert texts and any(not unicodedata.is_normalized("NFC", t) for t in texts)


def test_a_file_named_in_nfd_is_opened_and_withdrawn_by_its_name_typed_in_nfc_or_nfd(night):
    wh, _ = night
    nfd_twin = adversarial.NFD_PAIRS[f"{adversarial.NIGHT}/summary_보험요약.json"]
    with duckdb.connect(str(wh.paths.published_db), read_only=True) as con:
        cur = con.cursor()
        for typed in (nfd_twin, unicodedata.normalize("NFD", nfd_twin)):
            assert pages.find_set(cur, typed)["set_id"] == nfd_twin
    outcome = withdraw.record(wh.paths.db_path, nfd_twin, reason="a test")
    assert [f for f, _ in outcome.versions] == [nfd_twin]


def test_an_expectation_file_of_thousands_of_personas_is_scored_and_the_night_is_published(night):
    wh, code = night
    assert code == cli.EXIT_REJECTED  # the oversized one: rejected, nothing stopped
    n = wh.query(
        "select count(*) from marts.engagement_persona_scores where set_id = ? and in_expected",
        [adversarial.MANY_PERSONAS_RUN],
    )[0][0]
    assert n == adversarial.N_PERSONAS
    with duckdb.connect(str(wh.paths.published_db), read_only=True) as con:
        published = con.execute(
            "select count(*) from marts.engagement_run_scores where set_id = ?", [adversarial.MANY_PERSONAS_RUN]
        ).fetchone()[0]
    assert published == 1


def test_an_expectation_file_over_the_record_limit_is_rejected_naming_the_limit(night):
    wh, _ = night
    rejected = wh.query(
        "select reject_reason from ops.rejected_files where is_latest and source_file = ?",
        [f"{adversarial.OVERSIZED_EXPECTED_RUN}/expected.json"],
    )
    assert len(rejected) == 1
    assert rejected[0][0].startswith("record_too_large:")
    assert f"over the limit of {adversarial.EXPECTATION_LIMIT_MB} MB (AGENT_EVAL_MAX_RECORD_MB)" in rejected[0][0]
    state = wh.query(
        "select evaluation_state from marts.engagement_run_scores where set_id = ?",
        [adversarial.OVERSIZED_EXPECTED_RUN],
    )
    assert state == [("no_expected",)]
