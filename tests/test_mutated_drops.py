"""Damaged copies of every sample drop (tests/mutations.py), read by the
manifest and the loaders outside dbt: nothing raises, and every damaged
file is loaded, rejected with a reason, ignored or a repeat; a loaded file's
records all land, scored or rejected (SPEC 2.3)."""

from __future__ import annotations

import datetime

import mutations

from conftest import observe_and_load

MUTANTS_PER_FILE = 2
SEED = 7


def test_no_damaged_sample_drop_stops_the_night(tmp_path):
    drops = tmp_path / "drops"
    written = mutations.write_night(drops, datetime.date(2024, 1, 1), MUTANTS_PER_FILE, SEED)
    observed = observe_and_load(drops, tmp_path / "landing")
    assert len({entry["date"] for entry in written}) == len(written)
    assert {obs["source_file"].split("/", 1)[0] for obs, _ in observed} == {entry["date"] for entry in written}
    change_of = {entry["date"]: entry for entry in written}
    for obs, rows in observed:
        what = change_of[obs["source_file"].split("/", 1)[0]]  # names the file and the change
        assert obs["status"] in {"loaded", "rejected", "ignored", "repeat"}, what
        if obs["status"] == "repeat":  # the same bytes as a file loaded before
            assert obs["duplicate_of"], what
        elif obs["status"] == "loaded":
            assert obs["n_data_records"] == len(rows), what
        else:
            assert obs["reject_reason"], what
