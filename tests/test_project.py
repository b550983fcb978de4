"""The project as a user meets it: the bundled sample drops built with every
dbt test (unit tests included), the docs catalogue, the sample generator."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_eval import cli, gates, morning, publish, registry, report, runner, samples
from agent_eval.agents.summary import export
from conftest import PROJECT_DIR, SAMPLE_DROPS, Warehouse, reads_recorded


@pytest.fixture(scope="module")
def sample_build(demo_warehouse) -> Warehouse:
    """The sample drops built with the unit tests and reports (read only)."""
    assert demo_warehouse.exit_code == cli.EXIT_REJECTED  # the sample's deliberate bad input
    return demo_warehouse


def test_sample_build_runs_unit_tests_and_reports_every_set(sample_build):
    run_results = json.loads((sample_build.paths.dbt_work_dir / "target" / "run_results.json").read_text())
    unit = [r for r in run_results["results"] if r["unique_id"].startswith("unit_test.")]
    assert len(unit) >= 7
    # every node succeeds but the verdict on the sample's deliberate bad input
    failed = {
        r["unique_id"]
        for r in run_results["results"]
        if not r["unique_id"].startswith("exposure.") and r["status"] not in ("success", "pass")
    }
    assert failed == {gates.REJECTED_INPUT_TEST}
    sets = [r[0] for r in sample_build.query("select set_id from marts.resume_set_scores order by 1")]
    assert sets == [
        "2026-11-01/resume_agent_excel_export.csv",
        "2026-11-01/resume_agent_nightly.csv",
        "2026-11-02/resume_agent_nightly.csv",
    ]
    for set_id in sets:
        assert (sample_build.paths.reports_dir / "resume_agent" / Path(set_id).with_suffix(".md")).is_file()
    recruit_sets = [r[0] for r in sample_build.query("select set_id from marts.recruit_set_scores order by 1")]
    assert recruit_sets == [
        "2026-11-01/recruit_agent_nightly.jsonl",
        "2026-11-02/recruit_agent_nightly.jsonl",
    ]
    for set_id in recruit_sets:
        assert (sample_build.paths.reports_dir / "recruit_agent" / Path(set_id).with_suffix(".md")).is_file()


def test_sample_rejections_are_the_deliberate_ones(sample_build):
    # an Every Eval Ever instance file is read with its aggregate (logged as ignored on its own)
    ignored = sample_build.query("select source_file from ops.load_log where status = 'ignored' order by 1")
    assert ignored and all("/every_eval_ever/" in f and f.endswith("_samples.jsonl") for (f,) in ignored)
    assert sample_build.query(
        "select source_file, status from ops.load_log where status not in ('loaded', 'ignored') order by 1"
    ) == [
        ("2026-11-02/engagement/sim-20261102-02/expected.json", "rejected"),
        ("2026-11-02/resume_agent_broken_export.csv", "rejected"),
        ("2026-11-02/resume_agent_excel_export_copy.csv", "repeat"),
        ("2026-11-02/summary_broken_export.json", "rejected"),
    ]
    reasons = sample_build.query(
        "select distinct reason, reason_detail from ops.rejected_rows where is_current order by 2"
    )
    assert reasons == [
        ("invalid_json", "invalid_json: Expecting value at column 128"),
        ("invalid_json", "invalid_json: Unterminated string starting at at column 78"),
        ("invalid_result", "invalid_result: result.liked is not true/false (좋아요)"),
        ("invalid_track", "invalid_track: Track 'Track 4' is not a track in seed resume_track_rubrics"),
        ("invalid_track", "invalid_track: Track '기타' is not a track in seed resume_track_rubrics"),
        ("missing_item_id", "missing_item_id: itemId is null or blank"),
        ("missing_required_field", "missing_required_field: raw"),
    ]
    # the recruit sample's three bad lines are the last three of its first night
    assert sample_build.query(
        "select line_number, reason from ops.rejected_rows where kind = 'recruit_agent' order by 1"
    ) == [(32, "invalid_json"), (33, "missing_required_field"), (34, "missing_item_id")]
    assert sample_build.query("select distinct encoding from ops.load_log where status = 'loaded' order by 1") == [
        ("cp949",),
        ("utf-8",),
        ("utf-8-sig",),
    ]


def test_sample_engagement_runs_and_reports(sample_build):
    runs = sample_build.query(
        "select set_id, evaluation_state, interpretation_band is not null from marts.engagement_run_scores order by 1"
    )
    assert runs == [
        ("2026-11-01/engagement/sim-20261101-01", "evaluated", True),
        ("2026-11-02/engagement/sim-20261102-01", "evaluated", True),
        ("2026-11-02/engagement/sim-20261102-02", "no_expected", False),
    ]
    # the sample covers ignored lines and a persona expected but absent from the logs
    (n_not_act, n_not_ok) = sample_build.query("select sum(n_not_act), sum(n_not_ok) from marts.engagement_run_scores")[
        0
    ]
    assert n_not_act > 0 and n_not_ok > 0
    assert sample_build.query("select persona from marts.engagement_persona_scores where not in_logs") == [
        ("p-50s-golf",)
    ]
    for set_id in [r[0] for r in runs]:
        date, _, run_id = set_id.split("/")
        assert (sample_build.paths.reports_dir / "engagement" / date / f"{run_id}.md").is_file()


def test_latency_percentiles_equal_duckdbs_quantile_cont(sample_build):
    """history_latency_percentiles reads (value, count) pairs instead of
    holding every latency (docs/decisions/0018-percentiles-from-value-counts.md):
    every percentile of every
    group must equal DuckDB's own quantile_cont over the items, ties (the
    samples' latencies repeat) and groups without a latency included."""
    reference = sample_build.dicts("""
        with f as (
            select i.*, f.item_filter from intermediate.int_history__items i
            join (values ('all'), ('non_error'), ('error')) f (item_filter)
              on f.item_filter = 'all' or (f.item_filter = 'error') = (i.status = 'error'))
        select set_id, item_filter,
               case when grouping(round) = 0 and grouping(segment) = 0 then 'round_segment'
                    when grouping(round) = 0 then 'round' when grouping(segment) = 0 then 'segment'
                    else 'set' end as scope,
               coalesce(round, 'all') as round, coalesce(segment, 'all') as segment,
               quantile_cont(latency_sec, [0.5, 0.9, 0.95, 0.99]) as q
        from f
        group by grouping sets ((set_id, item_filter), (set_id, item_filter, round),
                                (set_id, item_filter, segment), (set_id, item_filter, round, segment))""")
    mart = {
        (r["set_id"], r["item_filter"], r["scope"], r["round"], r["segment"]): r
        for r in sample_build.dicts("select * from marts.history_latency_percentiles")
    }
    assert len(mart) == len(reference) > 50
    n_ties = sample_build.query(
        "select count(*) from (select set_id, latency_sec from intermediate.int_history__items "
        "where latency_sec is not null group by all having count(*) > 1)"
    )[0][0]
    assert n_ties > 0  # the check covers repeated values
    for ref in reference:
        row = mart[(ref["set_id"], ref["item_filter"], ref["scope"], ref["round"], ref["segment"])]
        got = [row["p50_sec"], row["p90_sec"], row["p95_sec"], row["p99_sec"]]
        if ref["q"] is None:
            assert got == [None] * 4, ref
        else:
            assert got == pytest.approx(ref["q"], rel=1e-12, abs=1e-12), ref


def test_docs_generate(demo_warehouse_copy, capfd):
    sample_build = demo_warehouse_copy  # dbt writes its target/ and opens the file
    capfd.readouterr()
    runner.run_dbt(sample_build.paths, ["docs", "generate", "--project-dir", str(PROJECT_DIR)])
    # the sample's rejected input is a verdict of builds (assert_no_rejected_input
    # runs there), not something a catalogue reports
    assert "rejected input" not in capfd.readouterr().out
    catalog = json.loads((sample_build.paths.dbt_work_dir / "target" / "catalog.json").read_text())
    nodes = catalog["nodes"]
    assert "model.agent_eval.resume_set_scores" in nodes
    manifest = json.loads((sample_build.paths.dbt_work_dir / "target" / "manifest.json").read_text())
    # every model, and every column it really has (per the catalogue), is described
    for unique_id, node in manifest["nodes"].items():
        if node["resource_type"] != "model":
            continue
        assert node["description"].strip(), unique_id
        documented = {name.lower(): col["description"] for name, col in node["columns"].items()}
        if node["config"]["materialized"] == "ephemeral":
            # no relation, no catalogue entry: the agent interface models,
            # whose documented columns test_agents checks against the unions
            assert documented and all(d.strip() for d in documented.values()), unique_id
            continue
        for name in nodes[unique_id]["columns"]:
            assert documented.get(name.lower(), "").strip(), f"{unique_id}.{name} is not documented"


def test_sample_generator_is_deterministic_and_matches_the_bundled_sample(tmp_path):
    written = samples.write_sample_drops(tmp_path)
    assert written
    for path in written:
        relative = path.relative_to(tmp_path)
        assert path.read_bytes() == (SAMPLE_DROPS / relative).read_bytes(), relative
    bundled = sorted(p.relative_to(SAMPLE_DROPS) for p in SAMPLE_DROPS.rglob("*") if p.is_file())
    assert bundled == sorted(p.relative_to(tmp_path) for p in written)


def test_sample_covers_every_encoding_and_case():
    raw = (SAMPLE_DROPS / "2026-11-01" / "resume_agent_excel_export.csv").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    assert (SAMPLE_DROPS / "2026-11-02" / "resume_agent_nightly.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    text = (SAMPLE_DROPS / "2026-11-01" / "resume_agent_nightly.csv").read_text(encoding="utf-8")
    for marker in ("S-MULTILINE", "S-BADJSON", "S-BLANKJSON", "S-BADTRACK", "S-DUP", "S-LLM"):
        assert marker in text
    recruit = (SAMPLE_DROPS / "2026-11-01" / "recruit_agent_nightly.jsonl").read_text(encoding="utf-8")
    for marker in (
        "S-ONCE",
        "S-BADRAW",
        "S-BADCHECK",
        "S-CLASS",
        "S-BROKEN",
        "S-NORAW",
        "S-NOID",
        "accuracyChecks",
        "@check",
        "latency_ms",
        "MULTI",
    ):
        assert marker in recruit
    assert (SAMPLE_DROPS / "2026-11-02" / "recruit_agent_nightly.jsonl").read_bytes().startswith(b"\xef\xbb\xbf")


def test_report_set_option_renders_only_the_named_sets_of_any_agent(sample_build, tmp_path, capsys):
    resume = "2026-11-01/resume_agent_nightly.csv"
    recruit = "2026-11-02/recruit_agent_nightly.jsonl"
    run = "2026-11-01/engagement/sim-20261101-01"
    common = ["--db", str(sample_build.paths.db_path), "--reports", str(tmp_path)]
    assert cli.main(["report", *common, "--set", resume, "--set", recruit, "--set", run]) == cli.EXIT_OK
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.md"))
    assert written == [
        "engagement/2026-11-01/sim-20261101-01.md",
        "recruit_agent/2026-11-02/recruit_agent_nightly.md",
        "resume_agent/2026-11-01/resume_agent_nightly.md",
    ]
    assert cli.main(["report", *common, "--set", resume, "--set", "2026-11-01/nope.csv"]) == cli.EXIT_USAGE
    assert "no set '2026-11-01/nope.csv'" in capsys.readouterr().err


def md_table(text: str, heading: str) -> list[list[str]]:
    """The cells of the body rows of the first markdown table after the
    line that contains ``heading``."""
    lines = text.split(heading, 1)[1].splitlines()[1:]
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    body = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        body.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return body


def test_reports_show_codes_verdicts_and_tracks_by_their_labels(sample_build):
    """A reason code reads `label (`code`)` (seed reason_labels), a verdict
    `회귀 · regressed` (seed verdict_labels), a track `Track 1` (seed
    resume_track_rubrics), as the viewer shows them."""
    reports = sample_build.paths.reports_dir
    with open(PROJECT_DIR / "seeds" / "common" / "reason_labels.csv", encoding="utf-8", newline="") as f:
        labels = {row["reason"]: row["label_ko"] for row in csv.DictReader(f)}

    def labelled(cell: str) -> bool:
        found = re.fullmatch(r"(.+) \(`(\w+)`\)", cell)
        return found is not None and labels.get(found.group(2)) == found.group(1)

    resume = (reports / "resume_agent" / "2026-11-02" / "resume_agent_nightly.md").read_text(encoding="utf-8")
    # the sample's two bad Track values (test_sample_rejections_are_the_deliberate_ones)
    rejected = md_table(resume, "## 부록) 제외된 행")
    assert [row[1] for row in rejected] == [f"{labels['invalid_track']} (`invalid_track`)"] * 2
    patterns = md_table(resume, "### 실패 질의 Top pattern")
    assert patterns and all(labelled(row[1]) for row in patterns)
    assert all(re.fullmatch(r"Track [1-3](, Track [1-3])*", row[4]) for row in patterns)
    mismatches = md_table(resume, "### 반복 재현 필요 질문")
    assert mismatches and all(re.fullmatch(r"Track [1-3]", row[1]) for row in mismatches)
    assert [row[0] for row in md_table(resume, "### Track별 취약영역")] == ["Track 1", "Track 2", "Track 3"]

    recruit = (reports / "recruit_agent" / "2026-11-01" / "recruit_agent_nightly.md").read_text(encoding="utf-8")
    assert [row[1] for row in md_table(recruit, "## 부록) 제외된 행")] == [
        f"{labels[code]} (`{code}`)" for code in ("invalid_json", "missing_required_field", "missing_item_id")
    ]
    assert all(labelled(row[1]) for row in md_table(recruit, "| 체크 | 사유 |") if row[0] != "(실패한 체크 없음)")
    summary = (reports / "summary" / "2026-11-01" / "summary_agent_notes.md").read_text(encoding="utf-8")
    queue = md_table(summary, "## LLM 보정 검토 대상")
    assert queue and all(labelled(row[1]) for row in queue)

    verdicts = {
        "regressed": "회귀 · regressed",
        "improved": "개선 · improved",
        "within_noise": "잡음 이내 · within noise",
    }
    changes = sample_build.query(
        "select verdict, count(*) from marts.history_metric_diffs where drop_date = '2026-11-02' group by 1"
    )
    morning_page = (reports / "morning" / "2026-11-02.md").read_text(encoding="utf-8")
    shown = [row[0].split(" ", 1)[1] for row in md_table(morning_page, "## 4) ")]
    assert sorted(shown) == sorted(verdicts[v] for v, n in changes if v != "within_noise" for _ in range(n))
    assert f"- {verdicts['within_noise']}: {dict(changes)['within_noise']}건" in morning_page
    (inspect_report,) = (reports / "inspect" / "2026-11-02").rglob("*.md")
    cells = [row[4] for row in md_table(inspect_report.read_text(encoding="utf-8"), "## 2) 기준선 대비")]
    assert cells and set(cells) <= set(verdicts.values())


def relations_read(monkeypatch: pytest.MonkeyPatch, render: Callable[[], object]) -> set[str]:
    """The tables a render call reads."""
    with reads_recorded(monkeypatch) as read:
        render()
    return read


def declared_reads(manifest: dict) -> dict[str, set[str]]:
    """Each exposure's parents, by the agent or reader its meta names."""
    declared = {}
    for exposure in manifest["exposures"].values():
        meta = exposure["config"]["meta"]
        key = meta.get("agent") or meta.get("renderer") or meta.get("reader")
        if key:
            declared[key] = {node.split(".")[-1] for node in exposure["depends_on"]["nodes"]}
    return declared


def test_each_report_reads_exactly_what_its_exposure_declares(sample_build, tmp_path, monkeypatch):
    """dbt's exposures are the lineage of what leaves the warehouse: each
    lists exactly the marts and seeds its reader (a report with its charts,
    the workbook, the morning page, the gates' JUnit file) reads, no more
    and no less. Rendered into an empty folder, so every chart is drawn and
    reads its rows."""
    manifest = json.loads((sample_build.paths.dbt_work_dir / "target" / "manifest.json").read_text())
    declared = declared_reads(manifest)
    db_path = sample_build.paths.db_path
    found = {
        agent.name: relations_read(
            monkeypatch, lambda a=agent: report.render_reports(a, db_path, tmp_path / a.name, None)
        )
        for agent in registry.registered()
    }
    found["morning.render_morning"] = relations_read(
        monkeypatch, lambda: morning.render_morning(db_path, tmp_path / "morning")
    )
    found["export.export_summary_xlsx"] = relations_read(
        monkeypatch, lambda: export.export_summary_xlsx(db_path, tmp_path / "workbook.xlsx")
    )
    found["gates.read_results"] = relations_read(monkeypatch, lambda: gates.read_results(db_path))
    # the viewer's (tests/test_viewer.py) and evaluate's (tests/test_evaluate_cli.py)
    # are checked where a viewer and an evaluation run
    assert {k: v for k, v in declared.items() if k not in ("viewer", "evaluate.read_result")} == found | {
        "publish.published_relations": declared["publish.published_relations"]
    }
    # the published file is every table of the published schemas
    published = {relation.name for relation in publish.published_relations(manifest)}
    assert declared["publish.published_relations"] == published
