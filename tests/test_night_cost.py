"""What a night costs follows tonight's data, not all of history: months of
engagement run folders (tests/adversarial.py's night-cost part) made a
night with nothing new list every file through pathlib and the agent
registry, re-render every report and chart after publishing, and the
build summary miscount sets. Each test counts work done (files rewritten,
registry look-ups), not time: scripts/bench.py measures the time
(targets 7n and 7r, figures in BENCHMARKS.md)."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
from pathlib import Path

import duckdb
import pytest

import adversarial
from agent_eval import cli, gates, registry, report, runner
from agent_eval.ingest import manifest
from conftest import Warehouse

N_RUNS = 6  # run folders (sets), over N_DAYS date folders
N_DAYS = 3
# files the night rewrites whatever happened: the gates' JUnit file is the
# record of tonight's gate run, not a report
NIGHTLY_RECORDS = {gates.JUNIT_FILE}


def build(wh: Warehouse, **options: object) -> tuple[int, str]:
    """cmd_build with reports, data tests left out; its exit code and output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.cmd_build(wh.paths, reports=True, data_tests=False, **options)
    return code, out.getvalue()


def report_files(reports_dir: Path) -> dict[str, int]:
    """Every file under the reports folder -> its modification time (ns)."""
    return {
        p.relative_to(reports_dir).as_posix(): p.stat().st_mtime_ns
        for p in reports_dir.rglob("*")
        if p.is_file() and p.name not in NIGHTLY_RECORDS
    }


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("night_cost"))
    runs = adversarial.write_engagement_history(wh.drops, N_RUNS, N_DAYS)
    code, first = build(wh)
    assert code == cli.EXIT_OK, first
    return wh, runs, first


@dataclasses.dataclass
class Night:
    """A build after the first and what it left: exit code, output, the
    report files and the published files before and after it, and whether
    what it served was what the working warehouse held."""

    code: int
    out: str
    reports_before: dict[str, int]
    reports_after: dict[str, int]
    published_before: tuple[tuple[int, int], str, list[str]]
    published_after: tuple[tuple[int, int], str, list[str]]
    served_as_built: bool


def night(wh: Warehouse) -> Night:
    reports, published = report_files(wh.paths.reports_dir), published_files(wh)
    code, out = build(wh)
    after = report_files(wh.paths.reports_dir), published_files(wh)
    return Night(code, out, reports, after[0], published, after[1], served_as_built(wh))


@pytest.fixture(scope="module")
def nights(history) -> dict[str, Night]:
    """The two nights after the first, each built once and read by every
    test of what it did (reports rewritten, files published): one with
    nothing new, then one whose newest run is delivered again with other
    bytes (its action log two acts shorter). The newest run: no later
    set's trend includes it, so its report is the only one that changes."""
    wh, runs, _ = history
    quiet = night(wh)
    log = wh.drops / max(runs) / adversarial.HISTORY_AGENTS[0] / "actions.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[:-2]) + "\n", encoding="utf-8")  # two acts fewer: new bytes
    return {"quiet": quiet, "replaced": night(wh)}


def test_the_summary_counts_one_set_per_run_folder(history):
    _, _, first = history
    engagement = registry.by_name()["engagement"]
    assert engagement.set_is_run_folder
    # N_RUNS run folders of 3 files each: N_RUNS sets, not one per file or per agent folder
    assert f"sets per agent: engagement {N_RUNS}\n" in first
    assert f"in the warehouse: {N_RUNS} sets" in first
    assert f"sets built this run: {N_RUNS};" in first


def test_the_first_night_writes_every_report_and_records_what_it_was_rendered_from(history):
    wh, runs, first = history
    engagement = registry.by_name()["engagement"]
    for run in runs:
        assert engagement.report_path(wh.paths.reports_dir, run).is_file()
    ledger = json.loads((wh.paths.reports_dir / report.LEDGER).read_text(encoding="utf-8"))
    assert sorted(ledger) == sorted(engagement.report_path(Path(), run).as_posix() for run in runs)
    assert f"reports written: {N_RUNS} under" in first
    # the summary fits a screen: a few of the paths, then how many more
    reports_dir = str(wh.paths.reports_dir)
    listed = [line for line in first.splitlines() if line.startswith(f"  {reports_dir}/engagement/")]
    assert len(listed) == runner.MAX_LISTED < N_RUNS
    assert f"  ... and {N_RUNS - runner.MAX_LISTED} more, one folder per agent" in first


def test_a_night_with_nothing_new_rewrites_no_report_chart_or_morning_page(history, nights):
    wh, _, _ = history
    quiet = nights["quiet"]
    before = quiet.reports_before
    assert any(name.endswith(".png") for name in before) and any(name.startswith("morning/") for name in before)
    assert quiet.code == cli.EXIT_OK, quiet.out
    assert quiet.reports_after == before
    assert f"reports written: 0 under {wh.paths.reports_dir} ({N_RUNS} unchanged" in quiet.out


def test_a_replaced_run_rewrites_its_report_and_no_other(history, nights):
    _, runs, _ = history
    replaced = nights["replaced"]
    engagement = registry.by_name()["engagement"]
    assert replaced.code == cli.EXIT_OK, replaced.out
    before, after = replaced.reports_before, replaced.reports_after
    changed = {name for name in after if after[name] != before.get(name)}
    target = engagement.report_path(Path(), max(runs)).as_posix()
    assert target in changed
    assert {name for name in changed if name.endswith(".md") and not name.startswith("morning/")} == {target}
    assert "reports written: 1 under" in replaced.out


def test_a_missing_report_file_is_written_again(history):
    wh, runs, _ = history
    engagement = registry.by_name()["engagement"]
    gone = engagement.report_path(wh.paths.reports_dir, runs[0])
    gone.unlink()
    written = report.render_changed(wh.paths.db_path, wh.paths.reports_dir)
    assert written.written == [gone] and gone.is_file()
    assert written.unchanged == N_RUNS - 1


def test_a_build_renders_at_most_its_limit_newest_first_and_defers_the_rest_to_agent_eval_report(history, tmp_path):
    wh, runs, _ = history
    reports = tmp_path / "reports"  # an empty reports folder: every set's report is due
    first = report.render_changed(wh.paths.db_path, reports, limit=2)
    engagement = registry.by_name()["engagement"]
    newest_two = sorted(runs, reverse=True)[:2]
    assert sorted(first.written) == sorted(engagement.report_path(reports, run) for run in newest_two)
    assert sorted(first.deferred) == sorted(set(runs) - set(newest_two))
    # the next night, nothing new: the deferred sets are not rendered either
    again = report.render_changed(wh.paths.db_path, reports, limit=2)
    assert again.written == [] and again.unchanged == 2 and again.n_deferred == N_RUNS - 2
    # on demand: `agent-eval report` renders them; then nothing is deferred
    assert len(report.render_all(wh.paths.db_path, reports)) == N_RUNS
    after = report.render_changed(wh.paths.db_path, reports, limit=2)
    assert after.written == [] and after.unchanged == N_RUNS and after.n_deferred == 0


def published_files(wh: Warehouse) -> tuple[tuple[int, int], str, list[str]]:
    """The served file's identity (inode, modification time), the Parquet
    link's target and the Parquet versions kept."""
    db = wh.paths.published_db.stat()
    versions = wh.paths.published_parquet.resolve().parent
    return (db.st_ino, db.st_mtime_ns), os.readlink(wh.paths.published_parquet), sorted(os.listdir(versions))


def served_as_built(wh: Warehouse) -> bool:
    """Every table the published file lists holds as many rows as the
    working warehouse's table of that name."""
    with duckdb.connect(str(wh.paths.published_db), read_only=True) as served:
        listed = served.execute(
            "select schema_name, table_name, n_rows from ops.published_tables where table_name <> 'published_tables'"
        ).fetchall()
    with duckdb.connect(str(wh.paths.db_path), read_only=True) as work:
        built = [(s, t, work.execute(f'select count(*) from "{s}"."{t}"').fetchone()[0]) for s, t, _ in listed]
    return len(listed) > 30 and built == listed


def test_a_night_with_nothing_new_copies_nothing_and_a_changed_night_publishes(history, nights):
    wh, _, _ = history
    quiet, replaced = nights["quiet"], nights["replaced"]
    assert quiet.code == cli.EXIT_OK, quiet.out
    assert quiet.published_after == quiet.published_before  # not rewritten, no new Parquet version
    assert f"tables unchanged, nothing copied: {wh.paths.publish_dir}" in quiet.out
    assert f"published: {wh.paths.published_db} (" in quiet.out
    # what is served is what the working warehouse holds
    assert quiet.served_as_built

    # new bytes in one run folder: the night publishes, and what it serves
    # is the new state (the run has two records fewer)
    assert replaced.code == cli.EXIT_OK, replaced.out
    before, after = replaced.published_before, replaced.published_after
    assert after[0] != before[0] and after[1] != before[1]
    assert "tables unchanged" not in replaced.out
    assert replaced.served_as_built


def test_listing_the_drops_looks_the_registry_up_once_whatever_the_history_holds(tmp_path, monkeypatch):
    calls = []
    registered = registry.registered

    def counted(*args, **kwargs):
        calls.append(1)
        return registered(*args, **kwargs)

    monkeypatch.setattr(registry, "registered", counted)
    looked_up = []
    for n_runs in (2, 40):
        drops = tmp_path / str(n_runs)
        adversarial.write_engagement_history(drops, n_runs, N_DAYS)
        calls.clear()
        entries = manifest.list_drop_entries(drops)
        assert len(entries) == 3 * n_runs and all(e.problem is None for e in entries)
        looked_up.append(len(calls))
    # before: one registry look-up (every agent's module imported) per file and folder
    assert looked_up[0] == looked_up[1] <= 1


def test_a_night_with_nothing_new_reads_no_file(tmp_path, monkeypatch):
    drops = tmp_path / "drops"
    adversarial.write_engagement_history(drops, 4, 2)
    history = [
        manifest.Observation(
            r["source_file"], r["sha256"], r["status"], r["observation_seq"], r["size_bytes"], r["modified_at"]
        )
        for r in manifest.manifest_rows(drops)
    ]
    assert len(history) == 12 and {o.status for o in history} == {"loaded"}
    read: list[Path] = []
    read_bytes = Path.read_bytes

    def counted(self: Path) -> bytes:
        read.append(self)
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    assert manifest.manifest_rows(drops, history) == []
    assert read == []
