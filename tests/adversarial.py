"""The adversarial drops, written by code (no large file in the
repository): good files of two agents next to every kind of bad input that
must not stop a night. ``write_corpus`` returns what the tests check."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

from agent_eval.agents.engagement import samples as engagement_samples
from agent_eval.agents.resume_agent import COLUMNS as RESUME_AGENT_COLUMNS
from agent_eval.agents.resume_agent.samples import ResumeRow, raw_json, write_resume_csv

FIXTURES = Path(__file__).parent / "fixtures"
NIGHT = "2026-11-01"

# responseTimeSec literals DuckDB's JSON reader takes as DOUBLE but that are
# no number here: latency NULL, score 0 (SPEC 3.3), the row itself is scored
NONFINITE = {"i-1e309": "1e309", "i-nan": "NaN", "i-inf": "Infinity", "i-neg-inf": "-Infinity"}
GOOD_LATENCY = ("i-ok", 3.0)

GOOD_RESUME = f"{NIGHT}/resume_agent_good.csv"
SPACED_RESUME = f"{NIGHT}/resume_agent_my file (v2) 'q'.csv"  # a name a link must survive
NONFINITE_RESUME = f"{NIGHT}/resume_agent_nonfinite.csv"
NONFINITE_RECRUIT = f"{NIGHT}/recruit_agent_nonfinite.jsonl"
# one good line and one over the record limit the tests set (a 50 MB line
# ran the build out of memory; the limit is the same code at any size)
OVERSIZED_RECRUIT = f"{NIGHT}/recruit_agent_oversized.jsonl"
RECORD_LIMIT_MB = "0.25"
OVERSIZED_CHARS = 200_000  # of Hangul: 600,000 bytes of UTF-8

# path -> (status, reason prefix) in ops.load_log; the files of the first night
POISON = {
    "2026-02-30/resume_agent_feb30.csv": ("rejected", "drop folder '2026-02-30' is not a date (YYYY-MM-DD)"),
    "2026-13-45/summary_month13.json": ("rejected", "drop folder '2026-13-45' is not a date (YYYY-MM-DD)"),
    f"{NIGHT}/resume_agent_gone.csv": ("rejected", "a broken symbolic link"),
    f"{NIGHT}/resume_agent_folder.csv": ("rejected", "a folder, not a file"),
    f"{NIGHT}/Resume_Agent_caps.CSV": (
        "rejected",
        "file name looks like a resume_agent drop but differs in letter case",
    ),
    f"{NIGHT}/.resume_agent_hidden.csv": ("ignored", "hidden file"),
}


def render_csv(rows: list[ResumeRow]) -> str:
    """A resume_agent CSV of these rows, as the sample writer writes one."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(RESUME_AGENT_COLUMNS)
    for row in rows:
        writer.writerow(row.values())
    return buffer.getvalue()


def nonfinite_resume_csv() -> str:
    rows = []
    for n, (item, literal) in enumerate(NONFINITE.items(), start=1):
        # %-format: in an f-string every brace of the JSON would need doubling
        doc = (
            '{"assistantMessage": "지원자 %d명을 찾았습니다.", "dataUIList": [{"formType": "TABLE"}], '  # noqa: UP031
            '"responseTimeSec": %s, "error": null}' % (n, literal)
        )
        rows.append(ResumeRow("run-nf", item, f"Q{n}", "1", f"질의 {n}", "목록", "조회", "1/1", raw_json=doc))
    item, seconds = GOOD_LATENCY
    rows.append(
        ResumeRow(
            "run-nf",
            item,
            "Q9",
            "1",
            "질의 9",
            "목록",
            "조회",
            "1/1",
            raw_json=raw_json("지원자 9명을 찾았습니다.", [{"formType": "TABLE"}], seconds),
        )
    )
    return render_csv(rows)


def recruit_template() -> str:
    """The first record of the recruit fixture, as a JSONL line."""
    return (
        (FIXTURES / "recruit_basic" / NIGHT / "recruit_agent_basic.jsonl").read_text(encoding="utf-8").splitlines()[0]
    )


def nonfinite_recruit_jsonl() -> str:
    """The first record of the recruit fixture, once per non-finite latency_ms."""
    template = recruit_template()
    lines = []
    for item, literal in NONFINITE.items():
        record = json.loads(template)
        record.update(itemId=item, queryId=f"Q-{item}", latency_ms=0.5)
        raw = json.loads(record["raw"])
        raw.pop("responseTimeSec", None)
        record["raw"] = json.dumps(raw, ensure_ascii=False)
        lines.append(json.dumps(record, ensure_ascii=False).replace('"latency_ms": 0.5', f'"latency_ms": {literal}'))
    return "\n".join(lines) + "\n"


def oversized_recruit_jsonl() -> str:
    template = recruit_template()
    good, big = json.loads(template), json.loads(template)
    good.update(itemId="i-small", queryId="Q-small")
    big.update(itemId="i-big", queryId="Q-big")
    raw = json.loads(big["raw"])
    raw["assistantMessage"] = "가" * OVERSIZED_CHARS
    big["raw"] = json.dumps(raw, ensure_ascii=False)
    return json.dumps(good, ensure_ascii=False) + "\n" + json.dumps(big, ensure_ascii=False) + "\n"


def write_corpus(drops: Path) -> None:
    night = drops / NIGHT
    write_resume_csv(drops / GOOD_RESUME, n_queries=4, rounds=["1/1", "2/1"], seed=3, with_special_rows=False)
    write_resume_csv(drops / SPACED_RESUME, n_queries=3, rounds=["1/1"], seed=4, with_special_rows=False)
    (drops / NONFINITE_RESUME).write_text(nonfinite_resume_csv(), encoding="utf-8")
    (drops / NONFINITE_RECRUIT).write_text(nonfinite_recruit_jsonl(), encoding="utf-8")
    (drops / OVERSIZED_RECRUIT).write_text(oversized_recruit_jsonl(), encoding="utf-8")
    good = (drops / GOOD_RESUME).read_bytes()
    for relative in (
        "2026-02-30/resume_agent_feb30.csv",
        f"{NIGHT}/Resume_Agent_caps.CSV",
        f"{NIGHT}/.resume_agent_hidden.csv",
    ):
        (drops / relative).parent.mkdir(parents=True, exist_ok=True)
        (drops / relative).write_bytes(good + relative.encode())  # not a repeat of the good file
    (drops / "2026-13-45").mkdir()
    (drops / "2026-13-45" / "summary_month13.json").write_text('{"test_cases": []}', encoding="utf-8")
    os.symlink(night / "resume_agent_missing.csv", night / "resume_agent_gone.csv")
    (night / "resume_agent_folder.csv").mkdir()


def remove_rejected(drops: Path) -> None:
    """The operator's fix for the second night: the rejected things are deleted."""
    for relative, (status, _) in POISON.items():
        path = drops / relative
        if status != "rejected":
            continue
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink()


# The night-holds corpus: the same deliveries in NFC and in NFD (as macOS
# writes them: decomposed Hangul in the file name and the text), and an
# engagement run whose expected.json names thousands of personas beside one
# over the record limit. NFD_PAIRS maps each NFC file to its NFD twin (both
# paths in NFC, the identity the warehouse gives them).
SAMPLES = FIXTURES.parent.parent / "data" / "drops" / "2026-11-01"
NFD_PAIRS = {
    f"{NIGHT}/resume_agent_지원자.csv": f"{NIGHT}/resume_agent_지원자_맥.csv",
    f"{NIGHT}/recruit_agent_채용.jsonl": f"{NIGHT}/recruit_agent_채용_맥.jsonl",
    f"{NIGHT}/summary_보험요약.json": f"{NIGHT}/summary_보험요약_맥.json",
}
NFD_SOURCES = {
    f"{NIGHT}/resume_agent_지원자.csv": "resume_agent_nightly.csv",
    f"{NIGHT}/recruit_agent_채용.jsonl": "recruit_agent_nightly.jsonl",
    f"{NIGHT}/summary_보험요약.json": "summary_agent_notes.json",
}
MANY_PERSONAS_RUN = f"{NIGHT}/engagement/sim-many-personas"
OVERSIZED_EXPECTED_RUN = f"{NIGHT}/engagement/sim-oversized-expected"
N_PERSONAS = 5000  # about 330 KB: ran the engagement models out of memory at 1 GB
EXPECTATION_LIMIT_MB = "1"  # the limit the night-holds build sets


def write_night_holds_corpus(drops: Path) -> None:
    import unicodedata

    night = drops / NIGHT
    night.mkdir(parents=True, exist_ok=True)
    for nfc_path, sample in NFD_SOURCES.items():
        text = (SAMPLES / sample).read_text(encoding="utf-8")
        (drops / nfc_path).write_text(text, encoding="utf-8")
        nfd_path = drops / unicodedata.normalize("NFD", NFD_PAIRS[nfc_path])
        nfd_path.write_text(unicodedata.normalize("NFD", text), encoding="utf-8")
    run = SAMPLES / "engagement" / "sim-20261101-01"
    for target in (MANY_PERSONAS_RUN, OVERSIZED_EXPECTED_RUN):
        for agent in ("agent-01", "agent-02"):
            (drops / target / agent).mkdir(parents=True, exist_ok=True)
            shutil.copy(run / agent / "actions.jsonl", drops / target / agent / "actions.jsonl")
    expected = json.loads((run / "expected.json").read_text(encoding="utf-8"))
    many = dict(
        expected, perPersona={f"p-{i:05d}": {"likeCount": i % 17, "commentCount": i % 5} for i in range(N_PERSONAS)}
    )
    (drops / MANY_PERSONAS_RUN / "expected.json").write_text(json.dumps(many), encoding="utf-8")
    huge = dict(expected, perPersona={f"p-{i:06d}": {"likeCount": i % 17, "commentCount": i % 5} for i in range(25000)})
    (drops / OVERSIZED_EXPECTED_RUN / "expected.json").write_text(json.dumps(huge), encoding="utf-8")


# The night-cost part: months of engagement simulations, one run folder a
# set (two agents' action logs and the expected.json they are scored
# against, the same ground truth: one series), written by the engagement
# samples' write_history. A night with nothing new must cost the same
# whatever the history holds, and rewrite no report.
HISTORY_AGENTS = engagement_samples.HISTORY_AGENTS


def write_engagement_history(drops: Path, n_runs: int, n_days: int) -> list[str]:
    """``n_runs`` run folders over ``n_days`` date folders (3 files each);
    returns the run folders (set ids)."""
    return engagement_samples.write_history(drops, n_runs, n_days)
