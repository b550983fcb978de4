"""Inputs and situations that must not stop a night: each ends in
a clear rejection or a one-line refusal, never a traceback."""

from __future__ import annotations

import contextlib
import getpass
import io
import subprocess
import sys

import duckdb
import pytest

from agent_eval import cli, runner

HOLD_OPEN = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("holding", flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("command", ["build", "demo"])
def test_a_second_build_on_a_held_warehouse_is_refused_in_one_line_before_dbt_starts(
    tmp_path, monkeypatch, capsys, command
):
    db, drops = tmp_path / "warehouse.duckdb", tmp_path / "drops"
    drops.mkdir()
    duckdb.connect(str(db)).close()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_OPEN, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"

        def no_dbt(*args, **kwargs):
            raise AssertionError("dbt was started on a held warehouse")

        monkeypatch.setattr(runner, "run_dbt", no_dbt)
        code = cli.main(
            [
                command,
                "--db",
                str(db),
                "--drops",
                str(drops),
                "--reports",
                str(tmp_path / "r"),
                "--published",
                str(tmp_path / "p"),
            ]
        )
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err.strip()
    assert code == cli.EXIT_USAGE
    assert err.count("\n") == 0, err
    assert err.startswith(f"agent-eval: {db} is in use by another process (PID {holder.pid}: ")
    assert "HOLD_OPEN" not in err and "import sys, time, duckdb" in err  # the holder's command line
    assert err.endswith("; try again when it ends")
    assert db.exists()  # the demo did not delete the held file


def test_a_free_or_missing_warehouse_has_no_lock_holder(tmp_path):
    db = tmp_path / "warehouse.duckdb"
    assert runner.lock_holder(db) is None
    duckdb.connect(str(db)).close()
    assert runner.lock_holder(db) is None


# ---------------------------------------------------------------- one poisoned night, then the next

from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from urllib.parse import unquote  # noqa: E402

import adversarial  # noqa: E402
from conftest import Warehouse  # noqa: E402

WITHDRAWN = adversarial.OVERSIZED_RECRUIT  # the poison pill the operator takes back
ALL_SETS = (
    adversarial.GOOD_RESUME,
    adversarial.SPACED_RESUME,
    adversarial.NONFINITE_RESUME,
    adversarial.NONFINITE_RECRUIT,
    adversarial.OVERSIZED_RECRUIT,
)
SETS_OF_NIGHT = "select set_id from marts.resume_set_scores union all select set_id from marts.recruit_set_scores"


def night_state(wh: Warehouse) -> dict:
    """What the tests check of one night, read before the next night changes it."""
    report = report_of(wh, WITHDRAWN)
    return {
        "load_log": wh.dicts("select * from ops.load_log order by observation_seq"),
        "sets": sorted(r[0] for r in wh.query(SETS_OF_NIGHT)),
        "history_sets": sorted(r[0] for r in wh.query("select distinct set_id from marts.history_set_metrics")),
        "item_sets": sorted(r[0] for r in wh.query("select distinct set_id from marts.recruit_item_scores")),
        "raw_rows_withdrawn": wh.query(
            "select count(*) from raw.raw_recruit_agent_rows where source_file = ?", [WITHDRAWN]
        )[0][0],
        "report": report.is_file(),
        "charts": sorted(p.name for p in report.parent.glob(report.stem + ".*.png")),
        "rejected_latest": wh.query("select source_file from ops.rejected_files where is_latest"),
        "rejected_rows": wh.dicts(
            "select source_file, line_number, reason, reason_detail, "
            "length(raw_text) as n_raw_chars from ops.rejected_rows where is_current"
        ),
        "published_sets": published_sets(wh),
    }


def report_of(wh: Warehouse, set_id: str) -> Path:
    from agent_eval import registry

    agent = "recruit_agent" if "/recruit_agent_" in set_id else "resume_agent"
    return registry.by_name()[agent].report_path(wh.paths.reports_dir, set_id)


def published_sets(wh: Warehouse) -> list[str]:
    with duckdb.connect(str(wh.paths.published_db), read_only=True) as con:
        return sorted(r[0] for r in con.execute(SETS_OF_NIGHT).fetchall())


@dataclass
class Interrupted:
    """Night 1 began as a build killed after its manifest step committed:
    what that step left, and the output of the build that came next."""

    observed: int  # rows of raw.raw_drop_files after the manifest step alone
    raw_rows: int  # rows of the raw history tables then
    out: str  # the next build's stdout


@pytest.fixture(scope="module")
def nights(tmp_path_factory):
    """Night 1: good files of two agents beside every poison of the corpus;
    a build of it was interrupted after its manifest step, and the next
    build finishes the night. Night 2: the operator deleted the rejected
    things, and withdrew one delivery (whose same bytes are delivered
    again). Night 3: the withdrawal undone."""
    wh = Warehouse(tmp_path_factory.mktemp("poison"))
    adversarial.write_corpus(wh.drops)
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv("AGENT_EVAL_MAX_RECORD_MB", adversarial.RECORD_LIMIT_MB)  # read by the loaders under dbt
    runner.run_dbt(wh.paths, ["run", "--select", "raw_drop_files"], quiet=True)  # the manifest step alone
    observed = wh.query("select count(*) from raw.raw_drop_files")[0][0]
    with duckdb.connect(str(wh.paths.db_path), read_only=True) as con:
        raw_rows = sum(runner.raw_row_counts(con).values())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        codes = [wh.build(reports=True)]
    interrupted = Interrupted(observed, raw_rows, out.getvalue())
    states = [night_state(wh)]
    adversarial.remove_rejected(wh.drops)
    assert (
        cli.main(["withdraw", WITHDRAWN, "--reason", "a test export, never a real run", "--db", str(wh.paths.db_path)])
        == cli.EXIT_OK
    )
    again = wh.drops / WITHDRAWN
    again.write_bytes(again.read_bytes())  # re-delivered: same bytes, new time
    codes.append(wh.build(reports=True))
    states.append(night_state(wh))
    assert (
        cli.main(["withdraw", WITHDRAWN, "--undo", "--reason", "it was real after all", "--db", str(wh.paths.db_path)])
        == cli.EXIT_OK
    )
    codes.append(wh.build(reports=True))
    states.append(night_state(wh))
    monkeypatch.undo()
    return wh, codes, states, interrupted


def test_the_poisoned_night_builds_the_good_files_and_rejects_each_poison_with_its_reason(nights):
    _, codes, states, _ = nights
    assert codes[0] == cli.EXIT_REJECTED
    logged = {r["source_file"]: r for r in states[0]["load_log"]}
    for path, (status, reason) in adversarial.POISON.items():
        assert path in logged, path
        assert logged[path]["status"] == status, (path, logged[path])
        assert logged[path]["reject_reason"].startswith(reason), (path, logged[path])
    for good in (
        adversarial.GOOD_RESUME,
        adversarial.SPACED_RESUME,
        adversarial.NONFINITE_RESUME,
        adversarial.NONFINITE_RECRUIT,
    ):
        assert logged[good]["status"] == "loaded", logged[good]
    assert states[0]["published_sets"] == states[0]["sets"] == sorted(ALL_SETS)


def test_non_finite_latencies_are_no_number_and_their_rows_are_scored(nights):
    wh, *_ = nights
    resume = {
        r[0]: r[1:]
        for r in wh.query(
            "select item_id, latency_sec, latency_score from marts.resume_item_scores where set_id = ?",
            [adversarial.NONFINITE_RESUME],
        )
    }
    assert resume == {**dict.fromkeys(adversarial.NONFINITE, (None, 0)), "i-ok": (3.0, 5)}
    recruit = {
        r[0]: r[1:]
        for r in wh.query(
            "select item_id, latency_sec, latency_score from marts.recruit_item_scores where set_id = ?",
            [adversarial.NONFINITE_RECRUIT],
        )
    }
    assert recruit == dict.fromkeys(adversarial.NONFINITE, (None, 0))


def test_an_oversized_record_is_rejected_naming_the_limit_and_the_rest_of_its_file_loads(nights):
    wh, _, states, _ = nights
    (row,) = [r for r in states[0]["rejected_rows"] if r["source_file"] == adversarial.OVERSIZED_RECRUIT]
    assert (row["line_number"], row["reason"]) == (2, "record_too_large")
    # 200,000 Hangul = 600,000 bytes + the record's other fields
    assert row["reason_detail"].startswith(
        "record_too_large: 0.6 MB, over the limit of 0.25 MB (AGENT_EVAL_MAX_RECORD_MB)"
    ), row
    assert row["n_raw_chars"] < 2_100  # the start of the record is kept, not 600 KB
    items = wh.query("select item_id from marts.recruit_item_scores where set_id = ?", [adversarial.OVERSIZED_RECRUIT])
    assert items == [("i-small",)]


def test_every_current_file_reconciles_and_every_good_set_is_in_the_marts(nights):
    wh, *_ = nights
    unbalanced = wh.query(
        "select source_file from ops.file_reconciliation where is_current and not ("
        "n_raw_rows = n_data_records and n_valid_rows + n_rejected_rows = n_data_records "
        "and n_scored_rows = n_valid_rows)"
    )
    assert unbalanced == []
    assert set(wh.query(SETS_OF_NIGHT)) == {(s,) for s in ALL_SETS}


def test_the_morning_page_links_resolve_whatever_the_file_names(nights):
    wh, *_ = nights
    page = next((wh.paths.reports_dir / "morning").glob("*.md"))
    text = page.read_text(encoding="utf-8")
    links = [target for target in __import__("re").findall(r"\]\(([^)\s]+)\)", text) if target.endswith(".md")]
    assert len(links) == len(ALL_SETS)  # one per set of the night
    for target in links:
        assert (page.parent / unquote(target)).is_file(), target
    assert any("my%20file%20%28v2%29" in target for target in links)


def test_the_next_night_after_the_rejected_files_are_deleted_is_clean(nights):
    _, codes, states, _ = nights
    assert codes[1] == cli.EXIT_OK
    assert states[1]["rejected_latest"] == []
    removed = {r["source_file"] for r in states[1]["load_log"] if r["status"] == "removed"}
    assert removed == {path for path, (status, _) in adversarial.POISON.items() if status == "rejected"}
    assert set(states[1]["sets"]) == set(ALL_SETS) - {WITHDRAWN}


def test_a_withdrawn_delivery_leaves_every_mart_history_and_report_and_keeps_its_raw_rows(nights):
    _, _, (before, after, _), _ = nights
    assert WITHDRAWN in before["sets"] and WITHDRAWN in before["history_sets"] and before["report"]
    assert before["charts"], "the withdrawn set had charts to remove"
    assert WITHDRAWN not in after["sets"]
    assert WITHDRAWN not in after["item_sets"]
    assert WITHDRAWN not in after["history_sets"]
    assert WITHDRAWN not in after["published_sets"]
    assert not after["report"] and after["charts"] == []
    assert after["raw_rows_withdrawn"] == before["raw_rows_withdrawn"] == 2  # the good line and the oversized one
    assert after["rejected_rows"] == []  # its rejected row left with it: the night is clean
    (logged,) = [r for r in after["load_log"] if r["source_file"] == WITHDRAWN]  # the same bytes again: no new row
    assert (logged["is_withdrawn"], logged["is_current"]) == (True, False)
    assert logged["withdrawal_reason"] == "a test export, never a real run"
    assert logged["withdrawn_by"] == getpass.getuser() and logged["withdrawn_at"] is not None


def test_undoing_a_withdrawal_brings_the_delivery_back(nights):
    _, codes, (before, _, undone), _ = nights
    assert codes[2] == cli.EXIT_REJECTED  # the oversized line is current again
    assert undone["rejected_rows"] == before["rejected_rows"]
    for key in ("sets", "item_sets", "history_sets", "published_sets", "charts", "raw_rows_withdrawn"):
        assert undone[key] == before[key], key
    assert undone["report"]
    (logged,) = [r for r in undone["load_log"] if r["source_file"] == WITHDRAWN]
    assert (logged["is_withdrawn"], logged["is_current"], logged["withdrawal_reason"]) == (False, True, None)


def test_withdraw_names_what_it_cannot_do(nights, tmp_path, capsys):
    wh, *_ = nights
    code = cli.main(["withdraw", "2026-11-01/no_such_file.csv", "--reason", "x", "--db", str(wh.paths.db_path)])
    assert code == cli.EXIT_USAGE
    assert "no delivery '2026-11-01/no_such_file.csv' with loaded rows" in capsys.readouterr().err
    code = cli.main(["withdraw", WITHDRAWN, "--reason", "x", "--db", str(tmp_path / "none.duckdb")])
    assert code == cli.EXIT_USAGE
    assert "no warehouse at" in capsys.readouterr().err


def test_the_build_after_an_interrupted_one_says_what_it_loaded(nights):
    """An interrupted build (killed after the manifest step committed)
    leaves observations whose rows no build loaded yet; the next build
    loads them, and its summary must say so. Night 1 began that way."""
    _, codes, _, interrupted = nights
    assert interrupted.observed > 0 and interrupted.raw_rows == 0
    assert codes[0] == cli.EXIT_REJECTED
    # good: 4 queries x 2 rounds; spaced: 3 x 1; non-finite resume 5 rows,
    # recruit 4 lines; the oversized file's good line (its other line is
    # over the record limit the night sets: rejected)
    n_rows = 4 * 2 + 3 * 1 + 5 + 4 + 1
    assert "files this run: no new or changed files" in interrupted.out
    assert f"rows this run: {n_rows} loaded, 1 rejected" in interrupted.out
    assert f"sets built this run: 5; in the warehouse: 5 sets, {n_rows} rows scored" in interrupted.out
