"""Inputs that stopped or misled a night: decomposed Hangul (NFD) scored
differently from the same text in NFC, and an expectation file of
thousands of personas that ran the engagement models out of memory and
failed every later night. The corpus is tests/adversarial.py's
night-holds part."""

from __future__ import annotations

import contextlib
import io
import shutil
import unicodedata

import duckdb
import pytest

import adversarial
from agent_eval import cli, withdraw
from agent_eval.viewer import pages
from conftest import Snapshot, Warehouse


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


FUTURE = "2099-01-01/resume_agent_future.csv"


@pytest.fixture(scope="module")
def withdrawn_and_future(demo_warehouse, tmp_path_factory):
    """A copy of the sample drops, built with reports, and two nights on
    it. The first both withdraws the date 2026-11-02 and finds a date
    folder from the future (a resume file of other bytes than a sample's,
    dated 2099-01-01): the withdrawal and the future folder touch
    different dates, so one night serves the tests of both. The second is
    the night the future date comes (a replay: AGENT_EVAL_AS_OF). What
    each test checks is kept as the night left it."""
    wh = Warehouse.copy_of(Snapshot(demo_warehouse.root), tmp_path_factory.mktemp("demo"))
    morning = wh.paths.reports_dir / "morning"
    pages_before = sorted(p.name for p in morning.iterdir())
    versions = withdraw.record(wh.paths.db_path, "2026-11-02", reason="a test night").versions
    good = wh.drops / "2026-11-01" / "resume_agent_nightly.csv"
    (wh.drops / FUTURE).parent.mkdir()
    (wh.drops / FUTURE).write_bytes(good.read_bytes() + b"\n")  # other bytes: not a repeat
    code = wh.build(reports=True, data_tests=False)
    pages = sorted(p.name for p in morning.iterdir())
    future = wh.query("select status, reject_reason from ops.load_log where source_file = ?", [FUTURE])
    metrics = wh.query("select count(*) from marts.history_set_metrics where drop_date = '2099-01-01'")
    first = {"code": code, "pages": pages, "future": future, "metrics": metrics}
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv("AGENT_EVAL_AS_OF", "2099-01-01")
    try:
        wh.build(reports=True, data_tests=False)
    finally:
        monkeypatch.undo()
    return wh, pages_before, versions, first


def test_withdrawing_a_date_removes_its_morning_page_and_the_page_follows_the_newest_date(withdrawn_and_future):
    _, before, versions, first = withdrawn_and_future  # the sample drops, built with reports
    assert "2026-11-02.md" in before and any(p.startswith("2026-11-02.") and p.endswith(".png") for p in before)
    assert versions
    assert not [p for p in first["pages"] if p.startswith("2026-11-02.")]
    assert "2026-11-01.md" in first["pages"]


HOLD_LOCK = """
import sys, time
from pathlib import Path
from agent_eval import runner
lock = runner.WarehouseLock.acquire(Path(sys.argv[1]))
assert not isinstance(lock, str), lock
print("holding", flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("command", ["build", "withdraw"])
def test_a_second_command_while_a_build_holds_the_lock_refuses_at_once_in_one_line(
    tmp_path, monkeypatch, capsys, command
):
    """The first build holds the lock file from its first step, before the
    warehouse even exists: the second refuses before it reads anything."""
    import subprocess
    import sys

    from agent_eval import runner

    db, drops = tmp_path / "warehouse.duckdb", tmp_path / "drops"
    drops.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"

        def no_dbt(*args, **kwargs):
            raise AssertionError("dbt was started while another build holds the lock")

        monkeypatch.setattr(runner, "run_dbt", no_dbt)
        common = ["--db", str(db)]
        args = ["build", *common, "--drops", str(drops), "--reports", str(tmp_path / "r")]
        if command == "withdraw":
            args = ["withdraw", "2026-11-01", "--reason", "x", *common]
        code = cli.main(args)
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err.strip()
    assert code == cli.EXIT_USAGE
    assert err.count("\n") == 0, err
    assert err.startswith(f"agent-eval: {db} is being built by another command (PID {holder.pid}: ")
    assert not db.exists()
    # the holder gone, the lock is free again (the OS released it)
    lock = runner.WarehouseLock.acquire(db)
    assert not isinstance(lock, str)
    lock.release()


def test_a_date_folder_from_the_future_is_not_read_until_its_date_comes(withdrawn_and_future):
    wh, _, _, first = withdrawn_and_future
    assert first["code"] == cli.EXIT_REJECTED  # the samples' rejected rows, and the future file
    [(status, reason)] = first["future"]
    assert status == "rejected" and "a date in the future" in reason
    assert first["metrics"] == [(0,)]
    # the morning page is the newest date's with a set (2026-11-02 is withdrawn), not the future one's
    assert not [p for p in first["pages"] if p.startswith("2099-01-01.")]
    assert [p for p in first["pages"] if p.endswith(".md")] == ["2026-11-01.md"]
    # the night its date has come (a replay: AGENT_EVAL_AS_OF), it is read
    assert wh.query(
        "select status from ops.load_log where source_file = ? order by observation_seq desc limit 1", [FUTURE]
    ) == [("loaded",)]
    assert (wh.paths.reports_dir / "morning" / "2099-01-01.md").is_file()


DAMAGES = {
    "truncated": lambda data: data[: len(data) // 3],
    "overwritten": lambda data: b"not a warehouse\n" * 4096,
}
DAMAGED_COMMANDS = (
    ["build", "--drops", "{drops}", "--reports", "{reports}"],
    ["withdraw", "2026-11-01", "--reason", "x"],
    ["report"],
)


@pytest.fixture(scope="module")
def damaged(module_built):
    """One copy of `basic`, its warehouse file damaged each way in turn
    (each command's exit code and stderr kept per damage, and whether the
    published file was still untouched), then moved aside the way the
    message says and built again: one rebuild serves both damages, since
    it reads the drops, never the file moved aside (the second damage's;
    the first lies under it on the same path)."""
    wh, first = module_built("basic")
    assert first == cli.EXIT_REJECTED
    published = wh.paths.published_db.read_bytes()
    clean = wh.query("select set_id, metric, metric_value from marts.history_set_metrics order by all")
    data = wh.paths.db_path.read_bytes()
    answers: dict[str, list[tuple[list[str], int, str]]] = {}
    untouched: dict[str, bool] = {}
    for damage, damaging in DAMAGES.items():
        wh.paths.db_path.write_bytes(damaging(data))
        answers[damage] = []
        for command in DAMAGED_COMMANDS:
            args = [a.format(drops=wh.drops, reports=wh.paths.reports_dir) for a in command]
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli.main([*args, "--db", str(wh.paths.db_path)])
            answers[damage].append((args, code, err.getvalue().strip()))
        untouched[damage] = wh.paths.published_db.read_bytes() == published
    # the way back the message gives: move it aside, build again
    wh.paths.db_path.rename(wh.paths.db_path.with_name(wh.paths.db_path.name + ".damaged"))
    code = wh.build(data_tests=False)
    rebuilt = wh.query("select set_id, metric, metric_value from marts.history_set_metrics order by all")
    return wh, answers, untouched, (clean, code, rebuilt)


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_warehouse_is_one_line_and_moving_it_aside_rebuilds_the_same_marts(damaged, damage):
    wh, answers, untouched, (clean, code, rebuilt) = damaged
    assert len(answers[damage]) == len(DAMAGED_COMMANDS)
    for args, exit_code, err in answers[damage]:
        assert exit_code == cli.EXIT_FAILED, args
        assert err.count("\n") == 0 and "Traceback" not in err, err
        assert err.startswith(f"agent-eval: {wh.paths.db_path} is damaged (") and "mv " in err, err
    assert untouched[damage]  # the published file
    # the way back the message gives: move it aside, build again
    assert code == cli.EXIT_REJECTED
    assert clean and rebuilt == clean


def test_the_summary_counts_sets_not_files(night):
    """An engagement run is one set of several files (its agents' actions
    and its expected.json): the summary counts runs."""
    from agent_eval import runner

    wh, _ = night
    summary = runner.read_summary(wh.paths.db_path)
    runs = {adversarial.MANY_PERSONAS_RUN, adversarial.OVERSIZED_EXPECTED_RUN}
    assert summary.sets_per_agent["engagement"] == len(runs)
    assert runs <= set(summary.sets)
    # from the corpus itself: each file a set, but an engagement run folder one set
    files = [p.relative_to(wh.drops).as_posix() for p in wh.drops.rglob("*") if p.is_file()]
    expected = {unicodedata.normalize("NFC", f) for f in files if "/engagement/" not in f} | runs
    assert set(summary.sets) == expected
    assert runs <= set(summary.sets_built_now)
    assert "sets per agent: " in runner.format_summary(summary)


def test_a_night_that_cannot_write_says_why_in_its_last_line_and_not_that_nothing_arrived(built, capsys):
    """A full disk, or any write that fails in the manifest step (here: the
    landing folder is a file in the way): the last line names the cause and
    the path, and the summary does not claim there were no new files."""
    wh, first = built("basic")
    assert first == cli.EXIT_REJECTED
    landing = wh.paths.db_path.with_name(wh.paths.db_path.name + ".landing")
    shutil.rmtree(landing)
    landing.write_text("in the way", encoding="utf-8")
    wh.add_fixture("night2")
    capsys.readouterr()
    assert wh.build(data_tests=False) == cli.EXIT_FAILED
    captured = capsys.readouterr()
    last = captured.err.strip().splitlines()[-1]
    assert last.startswith("agent-eval: cause: raw_drop_files: "), last
    assert str(landing) in last, last
    assert "no new or changed files" not in captured.out
    assert "files this run: not known" in captured.out
