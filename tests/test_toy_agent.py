"""A fifth agent is its folders, one registry row and one module.

The toy agent of tests/fixtures/echo_agent (a question, an answer, the
expected answer: 5 when they are equal, else 0) is laid over a copy of the
project: its model folders, its row in seeds/registry/agents.csv and its name
in var('agents'), and its Python package on the path. Nothing shared is
edited. One `agent-eval build` of its two nights must then show it in
reconciliation, rejections, history, its report, the morning page and the
viewer. Expected values are worked out by hand from the fixture files.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from conftest import FIXTURES, copy_project

TOY = FIXTURES / "echo_agent"
REGISTRY_ROW = "echo_agent,에코 에이전트,echo_agent,echo_set_scores,echo_agent,echo_agent,false,false\n"
# the metric it tracks over nightly history: label, direction, smallest change
METRIC_ROW = "echo_agent,exact_score,1,정답 일치,higher_is_better,0.5,0,1,false\n"
NIGHT_1 = "2026-11-01/echo_agent_basic.jsonl"
NIGHT_2 = "2026-11-02/echo_agent_basic.jsonl"


def add_toy_agent(project: Path) -> None:
    shutil.copytree(TOY / "project", project, dirs_exist_ok=True)
    with (project / "seeds" / "registry" / "agents.csv").open("a", encoding="utf-8") as seed:
        seed.write(REGISTRY_ROW)
    with (project / "seeds" / "history" / "history_metrics.csv").open("a", encoding="utf-8") as seed:
        seed.write(METRIC_ROW)
    config = project / "dbt_project.yml"
    text = config.read_text(encoding="utf-8")
    listed = re.search(r"\n  agents: \[[^\]]*\]", text)
    assert listed, "vars.agents in dbt_project.yml"
    config.write_text(text.replace(listed[0], listed[0][:-1] + ", echo_agent]"), encoding="utf-8")


@pytest.fixture(scope="module")
def toy_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("toy_agent")
    project = copy_project(root / "project", singular_tests=True)
    add_toy_agent(project)
    drops = root / "drops"
    shutil.copytree(TOY / "drops", drops)
    paths = {"project": project, "db": root / "warehouse.duckdb", "reports": root / "reports", "drops": drops}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TOY / "python"), env.get("PYTHONPATH")]))
    env.pop("AGENT_EVAL_PROJECT", None)
    done = subprocess.run(
        [sys.executable, "-m", "agent_eval.cli", "build", "--project-dir", str(project)]
        + ["--db", str(paths["db"]), "--drops", str(drops), "--reports", str(paths["reports"])],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    # exit 3: built and published, with the rejected lines of night 2 reported
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr[-3000:]
    paths["published"] = root / "published" / "warehouse.duckdb"
    return paths


def query(paths: dict[str, Path], sql: str) -> list[tuple]:
    with duckdb.connect(str(paths["db"]), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_its_files_reconcile(toy_build):
    assert query(
        toy_build,
        "select source_file, n_data_records, n_raw_rows, n_valid_rows, n_rejected_rows, n_scored_rows "
        "from ops.file_reconciliation where kind = 'echo_agent' order by source_file",
    ) == [(NIGHT_1, 4, 4, 4, 0, 4), (NIGHT_2, 5, 5, 3, 2, 3)]


def test_its_rejected_lines_are_in_ops_with_line_and_reason(toy_build):
    assert query(
        toy_build,
        "select source_file, line_number, reason from ops.rejected_rows where kind = 'echo_agent' order by line_number",
    ) == [(NIGHT_2, 3, "invalid_json"), (NIGHT_2, 5, "missing_query_id")]


def test_its_sets_form_a_series_in_history(toy_build):
    assert query(
        toy_build,
        "select set_id, agent, series_id, set_seq from marts.history_set_metrics "
        "where metric = 'exact_score' order by set_seq",
    ) == [(NIGHT_1, "echo_agent", "echo_agent_basic.jsonl", 1), (NIGHT_2, "echo_agent", "echo_agent_basic.jsonl", 2)]
    # night 2 against night 1: 10/3 - 15/4 = -5/12
    assert query(
        toy_build,
        "select baseline_set_id, metric_label, baseline_value, delta from marts.history_metric_diffs "
        f"where set_id = '{NIGHT_2}' and metric = 'exact_score'",
    ) == [(NIGHT_1, "정답 일치", 3.75, pytest.approx(-5 / 12))]
    # night 1: 5, 0, 5, 5 -> 3.75, se = sd / sqrt(n) = 2.5 / 2; night 2:
    # 5, 5, 0 (two lines rejected) -> 10/3, se = sqrt(75/9) / sqrt(3) = 5/3
    values = query(
        toy_build,
        "select metric_value, n_obs, n_clusters, std_error from marts.history_set_metrics "
        "where metric = 'exact_score' order by set_seq",
    )
    assert values == [
        (3.75, 4, 4, pytest.approx(1.25, abs=1e-9)),
        (pytest.approx(10 / 3), 3, 3, pytest.approx(5 / 3, abs=1e-9)),
    ]


def test_its_report_and_the_morning_page_show_it(toy_build):
    report = toy_build["reports"] / "echo_agent" / "2026-11-02" / "echo_agent_basic.md"
    text = report.read_text(encoding="utf-8")
    assert "exact score: 3.33" in text
    assert "rejected line 3: invalid_json" in text and "rejected line 5: missing_query_id" in text
    morning = (toy_build["reports"] / "morning" / "2026-11-02.md").read_text(encoding="utf-8")
    assert "에코 에이전트" in morning and "echo_agent_basic.jsonl" in morning


def test_the_viewer_shows_it(toy_build, monkeypatch):
    from agent_eval.viewer import create_app

    monkeypatch.setenv("AGENT_EVAL_PROJECT", str(toy_build["project"]))
    monkeypatch.syspath_prepend(str(TOY / "python"))
    client = create_app(toy_build["published"]).test_client()
    overview = client.get("/?day=2026-11-02")
    assert overview.status_code == 200
    page = overview.get_data(as_text=True)
    assert "에코 에이전트" in page and NIGHT_2 in page
    # its set page: the metric card of the history marts (10/3 shown as 3.333)
    set_page = client.get(f"/set?id={NIGHT_2}")
    assert set_page.status_code == 200
    assert "정답 일치" in set_page.get_data(as_text=True) and "3.333" in set_page.get_data(as_text=True)
