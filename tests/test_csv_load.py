"""DuckDB's CSV reader against the exact parser (agent_eval.csv_load).

The contract: whichever parser the manifest picks for a file, the raw rows
are exactly the ones the exact (Python csv) parser gives - same values, same
physical start lines, same rejections. DuckDB is picked only when the file's
lines and bytes are fully accounted for; these tests check both that the fast
path is really taken on clean files and that it never changes a row.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path

import duckdb
import pytest

from agent_eval import ingest
from agent_eval.agents import resume_agent
from agent_eval.ingest import csv_load

HEADER = list(resume_agent.COLUMNS)


def write(root: Path, name: str, data: bytes) -> Path:
    path = root / "2026-11-01" / f"resume_agent_{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def csv_text(rows: list[list[str]], header: list[str] = HEADER, terminator: str = "\r\n") -> str:
    """Valid CSV: a field is quoted when it holds a comma, a quote or any line
    break (csv.writer would leave a lone \r unquoted in a \n file)."""

    def field(value: str) -> str:
        if any(ch in value for ch in ',"\r\n'):
            return '"' + value.replace('"', '""') + '"'
        return value

    return "".join(",".join(map(field, r)) + terminator for r in [header, *rows])


def row(*values: str, width: int = 14) -> list[str]:
    return list(values) + [""] * (width - len(values))


def load_both_ways(root: Path) -> list[tuple[dict, list[dict], list[dict]]]:
    """For each file: its manifest row, the rows as loaded, the exact parser's rows."""
    out = []
    con = duckdb.connect()
    for obs in ingest.manifest_rows(root):
        if obs["status"] == "repeat":  # damage that left the bytes as they were
            continue
        assert obs["status"] == "loaded", obs
        pending = ingest.PendingFile(
            obs["source_file"],
            obs["sha256"],
            obs["encoding"],
            obs["loaded_at"],
            obs["loader"],
            obs["n_lines"],
            obs["n_data_records"],
            obs["size_bytes"],
            obs["modified_at"],
        )
        relation = ingest.csv_rows_relation(con, "resume_agent", root, [pending])
        names = relation.columns
        loaded = [dict(zip(names, values)) for values in relation.order("line_number").fetchall()]
        exact_pending = ingest.PendingFile(obs["source_file"], obs["sha256"], obs["encoding"], obs["loaded_at"])
        exact = ingest.rows_table("resume_agent", root, [exact_pending]).to_pylist()
        assert len(exact) == obs["n_data_records"]
        out.append((obs, loaded, exact))
    return out


def test_clean_file_with_multiline_cells_is_read_by_duckdb_with_exact_lines(tmp_path):
    rows = [
        row("r", "i1", "q1", "1", "첫 줄\n둘째 줄"),
        row("r", "i2", "q2", "2", 'say "hi", then\r\nleave', "", "", "1/1", "lone\rcr"),
        row("r", "i3", "q3", "T1", "", "", "", "2/1", "", "", "", "", "", '{"a": [1, 2], "b": ""}'),
        row("r", "i4", "q4", "3", "끝,쉼표"),
    ]
    write(tmp_path, "multi", csv_text(rows).encode("utf-8"))
    ((obs, loaded, exact),) = load_both_ways(tmp_path)
    assert obs["loader"] == "duckdb", obs["loader_note"]
    # header 1, i1 2-3, i2 4-6 (\r\n and a lone \r inside cells), i3 7, i4 8
    assert [r["line_number"] for r in loaded] == [2, 4, 7, 8]
    assert loaded == exact


@pytest.mark.parametrize(
    ("name", "text", "encoding"),
    [
        ("lf_no_final_newline", csv_text([row("r", "i1", "q1", "1")], terminator="\n").rstrip("\n"), "utf-8"),
        ("bom", csv_text([row("r", "i1", "q1", "1", "질의")]), "utf-8-sig"),
        ("cp949", csv_text([row("r", "i1", "q1", "1", "여성 지원자만 보여줘\n두 줄")]), "cp949"),
        (
            "extra_columns",
            csv_text([row("r", "i1", "q1", "1", width=16)[:14] + ['메모 "x"', ""]], header=HEADER + ["비고", "기타"]),
            "utf-8",
        ),
        (
            "reordered_header",
            csv_text([list(reversed(row("r", "i1", "q1", "1")))], header=list(reversed(HEADER))),
            "utf-8",
        ),
        ("empty_quoted_and_spaces", ",".join(HEADER) + '\n"",  a ,"", ,1' + "," * 9 + "\n", "utf-8"),
    ],
)
def test_clean_files_are_read_by_duckdb_and_equal_the_exact_parser(tmp_path, name, text, encoding):
    write(tmp_path, name, text.encode(encoding))
    ((obs, loaded, exact),) = load_both_ways(tmp_path)
    assert obs["encoding"] == encoding
    assert obs["loader"] == "duckdb", obs["loader_note"]
    assert loaded == exact


@pytest.mark.parametrize(
    ("name", "text", "note"),
    [
        # DuckDB skips blank lines silently: the line accounting notices
        (
            "blank_line",
            ",".join(HEADER)
            + "\n"
            + ",".join(row("r", "i1", "q1", "1"))
            + "\n\n"
            + ",".join(row("r", "i2", "q2", "1"))
            + "\n",
            "line accounting",
        ),
        # DuckDB drops spaces around a quoted field, Python keeps them
        ("space_before_quote", ",".join(HEADER) + '\nr,i1,q1,1, "x"' + "," * 10 + "\n", "byte accounting"),
        ("ragged", ",".join(HEADER) + "\nr,i1,q1\n" + ",".join(row("r", "i2", "q2", "1")) + "\n", "duckdb"),
        ("bad_quote", ",".join(HEADER) + '\nr,"un"closed' + "," * 12 + "\n", "duckdb"),
    ],
)
def test_files_duckdb_would_misread_go_to_the_exact_parser(tmp_path, name, text, note):
    write(tmp_path, name, text.encode("utf-8"))
    ((obs, loaded, exact),) = load_both_ways(tmp_path)
    assert obs["loader"] == "python"
    assert obs["loader_note"].startswith(note), obs["loader_note"]
    assert loaded == exact


ALPHABET = ["a", "가", ",", '"', "\n", "\r\n", "\r", "{", "}", ":", "é", "x y"]
BLANKS = [" ", "\t"]  # next to a quote they may look like `"a" "b"`: slow path


def random_cell(rng: random.Random, alphabet: list[str]) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))


def corrupt(text: str, rng: random.Random) -> str:
    """Typical damage: spaces around quotes, a lost quote, a blank line."""
    kind = rng.choice(["space_quote", "quote_space", "drop_quote", "blank_line", "none"])
    positions = [i for i, ch in enumerate(text) if ch == '"']
    if kind == "space_quote" and positions:
        i = rng.choice(positions)
        return text[:i] + " " + text[i:]
    if kind == "quote_space" and positions:
        i = rng.choice(positions) + 1
        return text[:i] + " " + text[i:]
    if kind == "drop_quote" and positions:
        i = rng.choice(positions)
        return text[:i] + text[i + 1 :]
    if kind == "blank_line":
        lines = text.split("\n")
        i = rng.randint(1, len(lines) - 1)
        return "\n".join(lines[:i] + [""] + lines[i:])
    return text


def test_random_files_load_exactly_as_the_exact_parser_reads_them(tmp_path):
    """Random valid files, and the same files damaged: rows always equal."""
    fast = clean_files = 0
    for seed in range(12):
        rng = random.Random(seed)
        # odd seeds: blanks too, so quotes sit next to blanks (false alarms)
        alphabet = ALPHABET + BLANKS if seed % 2 else ALPHABET
        root = tmp_path / str(seed)
        clean = set()
        for n in range(4):
            rows = [[random_cell(rng, alphabet) for _ in range(14)] for _ in range(rng.randint(1, 30))]
            text = csv_text(rows, terminator=rng.choice(["\n", "\r\n"]))
            write(root, f"clean{n}", text.encode("utf-8"))
            clean.add(f"2026-11-01/resume_agent_clean{n}.csv")
            write(root, f"damaged{n}", corrupt(text, rng).encode("utf-8"))
        for obs, loaded, exact in load_both_ways(root):
            assert loaded == exact, (seed, obs["source_file"], obs["loader"])
            if obs["source_file"] in clean:
                clean_files += 1
                fast += obs["loader"] == "duckdb"
                if obs["loader"] != "duckdb":  # only a conservative false alarm
                    assert seed % 2 and obs["loader_note"].startswith("a quote, blanks"), (seed, obs["loader_note"])
    assert fast >= clean_files // 2, (fast, clean_files)


def test_a_file_changed_after_the_manifest_loads_nothing(tmp_path):
    path = write(tmp_path, "moving", csv_text([row("r", "i1", "q1", "1")]).encode())
    (obs,) = ingest.manifest_rows(tmp_path)
    path.write_bytes(csv_text([row("r", "i1", "q1", "1"), row("r", "i2", "q2", "2")]).encode())
    pending = ingest.PendingFile(
        obs["source_file"],
        obs["sha256"],
        obs["encoding"],
        obs["loaded_at"],
        obs["loader"],
        obs["n_lines"],
        obs["n_data_records"],
        obs["size_bytes"],
        obs["modified_at"],
    )
    relation = ingest.csv_rows_relation(duckdb.connect(), "resume_agent", tmp_path, [pending])
    assert relation.fetchall() == []


def test_scan_counts_lines_and_validates_utf8_in_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(csv_load, "CHUNK_BYTES", 7)  # force sequences across chunk edges
    path = tmp_path / "x.csv"
    path.write_bytes('가나\r\n다\r라\n"마"'.encode())
    scan = csv_load.scan_file(path)
    assert scan.utf8_error_offset is None
    assert (scan.counts.n_lines, scan.counts.n_quote_bytes, scan.counts.n_break_bytes) == (4, 2, 4)
    bad = "가나".encode() + b"\xff" + "다".encode()
    path.write_bytes(bad)
    assert csv_load.scan_file(path).utf8_error_offset == 6
    path.write_bytes("가".encode()[:2])  # truncated sequence at the end
    assert csv_load.scan_file(path).utf8_error_offset == 0


def test_a_cp949_file_is_read_from_a_utf8_copy_that_outlives_the_loader(tmp_path, monkeypatch):
    """DuckDB reads a CP949 file through a UTF-8 copy named by the file
    version; the relation the loader returns is read after the loader
    returned (as dbt does), and the copy is still there. A later load
    removes copies older than the limit, and only those."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    root = tmp_path / "drops"
    write(root, "korean", csv_text([row("r", "i1", "q1", "1", "여성 지원자만 보여줘")]).encode("cp949"))
    ((obs, loaded, exact),) = load_both_ways(root)
    assert (obs["encoding"], obs["loader"]) == ("cp949", "duckdb")
    assert [r["질의"] for r in loaded] == [r["질의"] for r in exact] == ["여성 지원자만 보여줘"]
    copy = csv_load.transcoded_dir() / f"{obs['sha256']}.csv"
    assert copy.read_text(encoding="utf-8").splitlines()[1].endswith("여성 지원자만 보여줘" + "," * 9)
    stale = csv_load.transcoded_dir() / ("0" * 64 + ".csv")
    stale.write_text("old", encoding="utf-8")
    an_hour_ago = time.time() - csv_load.TRANSCODED_MAX_AGE_S - 1
    os.utime(stale, (an_hour_ago, an_hour_ago))
    assert csv_load.remove_stale_transcoded() == [stale]
    assert copy.is_file() and not stale.exists()
