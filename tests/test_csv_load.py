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
import shutil
import tempfile
from pathlib import Path

import duckdb
import pytest

from agent_eval import ingest
from agent_eval.agents import resume_agent
from agent_eval.ingest import csv_load
from conftest import observe_and_load

HEADER = list(resume_agent.COLUMNS)
RESUME = ingest.kind_named("resume_agent")


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


def exact_rows(root: Path, obs: dict) -> list[dict]:
    """The exact parser's rows of an observed file, as raw rows."""
    text = ingest.decode((root / obs["source_file"]).read_bytes(), obs["encoding"])
    table = ingest.records_table(ingest.read_records(text, RESUME), RESUME)
    lineage = {"source_file": obs["source_file"], "sha256": obs["sha256"], "loaded_at": obs["loaded_at"]}
    return [lineage | record for record in table.to_pylist()]


def load_both_ways(root: Path) -> list[tuple[dict, list[dict], list[dict]]]:
    """For each file: its manifest row, the rows as loaded, the exact parser's rows.

    Also checks that the manifest's parses left exactly one landing per
    loaded version in the landing folder (no partial file of a cancelled or
    failed DuckDB parse). For a file the exact parser read, ``loaded ==
    exact`` checks the landing's round trip and the loader's SELECT; for a
    file DuckDB read, it checks DuckDB against the exact parser."""
    out = []
    landing = root.with_name(f"{root.name}.landing")
    observed = observe_and_load(root, landing)
    loaded_shas = {obs["sha256"] for obs, _ in observed if obs["status"] == "loaded"}
    folder = landing / "resume_agent"
    present = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    assert present == sorted(f"{sha}.{ext}" for sha in loaded_shas for ext in ("json", "parquet"))
    for obs, loaded in observed:
        if obs["status"] == "repeat":  # damage that left the bytes as they were
            continue
        assert obs["status"] == "loaded", obs
        exact = exact_rows(root, obs)
        assert len(exact) == len(loaded) == obs["n_data_records"]
        out.append((obs, loaded, exact))
    return out


def test_clean_file_with_multiline_cells_is_read_by_duckdb_with_exact_lines(tmp_path):
    rows = [
        row("r", "i1", "q1", "1", "첫 줄\n둘째 줄"),
        row("r", "i2", "q2", "2", 'say "hi", then\r\nleave', "", "", "1/1", "lone\rcr"),
        row("r", "i3", "q3", "T1", "", "", "", "2/1", "", "", "", "", "", '{"a": [1, 2], "b": ""}'),
        row("r", "i4", "q4", "3", "끝,쉼표"),
    ]
    write(tmp_path / "drops", "multi", csv_text(rows).encode("utf-8"))
    ((obs, loaded, exact),) = load_both_ways(tmp_path / "drops")
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
    write(tmp_path / "drops", name, text.encode(encoding))
    ((obs, loaded, exact),) = load_both_ways(tmp_path / "drops")
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
    write(tmp_path / "drops", name, text.encode("utf-8"))
    ((obs, loaded, exact),) = load_both_ways(tmp_path / "drops")
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


def test_a_file_changed_after_the_manifest_loads_the_version_it_observed(tmp_path):
    """The loader reads what the manifest's parse landed, not the drop file:
    the rows are those of the recorded sha256 even if the file changed."""
    path = write(tmp_path / "drops", "moving", csv_text([row("r", "i1", "q1", "1")]).encode())
    landing = tmp_path / "landing"
    (obs,) = ingest.manifest_rows(tmp_path / "drops", landing=landing)
    path.write_bytes(csv_text([row("r", "i1", "q1", "1"), row("r", "i2", "q2", "2")]).encode())
    pending = ingest.PendingFile(obs["source_file"], obs["sha256"], obs["loaded_at"])
    relation = ingest.load_pending(duckdb.connect(), "resume_agent", tmp_path / "drops", [pending], landing)
    assert [(r[1], r[2], r[7]) for r in relation.fetchall()] == [(obs["sha256"], 2, "i1")]


def test_a_version_whose_landing_is_gone_is_parsed_again_if_its_bytes_are_unchanged(tmp_path):
    drops, landing = tmp_path / "drops", tmp_path / "landing"
    path = write(drops, "again", csv_text([row("r", "i1", "q1", "1", "두\n줄"), row("r", "i2", "q2", "2")]).encode())
    (obs,) = ingest.manifest_rows(drops, landing=landing)
    pending = ingest.PendingFile(obs["source_file"], obs["sha256"], obs["loaded_at"])
    shutil.rmtree(landing)
    relation = ingest.load_pending(duckdb.connect(), "resume_agent", drops, [pending], landing)
    loaded = [dict(zip(relation.columns, r)) for r in relation.order("line_number").fetchall()]
    assert loaded == exact_rows(drops, obs)
    assert [r["line_number"] for r in loaded] == [2, 4]  # i1's cell spans lines 2-3
    # changed bytes and no landing: nothing is loaded (the next build
    # observes the new version)
    path.write_bytes(csv_text([row("r", "i9", "q9", "1")]).encode())
    shutil.rmtree(landing)
    relation = ingest.load_pending(duckdb.connect(), "resume_agent", drops, [pending], landing)
    assert relation.fetchall() == []


def test_the_manifest_empties_the_landing_folder_before_it_lands(tmp_path):
    """What earlier builds landed has been read by their loaders (or their
    versions are parsed again): the manifest starts from an empty folder."""
    drops, landing = tmp_path / "drops", tmp_path / "landing"
    write(drops, "first", csv_text([row("r", "i1", "q1", "1")]).encode())
    (first,) = ingest.manifest_rows(drops, landing=landing)
    assert sorted(p.name for p in (landing / "resume_agent").iterdir()) == [
        f"{first['sha256']}.json",
        f"{first['sha256']}.parquet",
    ]
    write(drops, "second", csv_text([row("r", "i2", "q2", "1")]).encode())
    history = [
        ingest.Observation(
            first["source_file"], first["sha256"], "loaded", 1, first["size_bytes"], first["modified_at"]
        )
    ]
    (second,) = ingest.manifest_rows(drops, history, landing=landing)
    assert second["source_file"].endswith("second.csv")
    assert sorted(p.name for p in (landing / "resume_agent").iterdir()) == [
        f"{second['sha256']}.json",
        f"{second['sha256']}.parquet",
    ]


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


def test_a_cp949_file_is_parsed_by_duckdb_through_a_utf8_copy_removed_at_once(tmp_path, monkeypatch):
    """DuckDB reads UTF-8 only: a CP949 file is parsed through a UTF-8
    copy; the rows land and the copy is gone before the manifest returns."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    root = tmp_path / "drops"
    write(root, "korean", csv_text([row("r", "i1", "q1", "1", "여성 지원자만 보여줘")]).encode("cp949"))
    ((obs, loaded, exact),) = load_both_ways(root)
    assert (obs["encoding"], obs["loader"]) == ("cp949", "duckdb")
    assert [r["질의"] for r in loaded] == [r["질의"] for r in exact] == ["여성 지원자만 보여줘"]
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_csv_file_is_parsed_once_by_the_manifest_and_never_by_the_loader(tmp_path, monkeypatch):
    parses: list[str] = []
    real_land = csv_load.land_csv
    monkeypatch.setattr(
        csv_load, "land_csv", lambda path, *a, **kw: parses.append(path.name) or real_land(path, *a, **kw)
    )
    drops, landing = tmp_path / "drops", tmp_path / "landing"
    write(drops, "once", csv_text([row("r", "i1", "q1", "1"), row("r", "i2", "q2", "2", "두\n줄")]).encode())
    (obs,) = ingest.manifest_rows(drops, landing=landing)
    assert (obs["loader"], parses) == ("duckdb", ["resume_agent_once.csv"])
    pending = ingest.PendingFile(obs["source_file"], obs["sha256"], obs["loaded_at"])
    relation = ingest.load_pending(duckdb.connect(), "resume_agent", drops, [pending], landing)
    assert [r[2] for r in relation.order("line_number").fetchall()] == [2, 3]
    assert parses == ["resume_agent_once.csv"]


def test_a_csv_file_that_changes_while_the_manifest_reads_it_is_not_recorded(tmp_path, monkeypatch):
    """The byte scan and DuckDB's parse read the file at once: if it changes
    meanwhile, nothing of it is recorded or landed; the next build sees it."""
    drops, landing = tmp_path / "drops", tmp_path / "landing"
    path = write(drops, "moving", csv_text([row("r", "i1", "q1", "1")]).encode())
    real_sums = csv_load.value_sums

    def sums_while_the_file_grows(*args):
        path.write_bytes(csv_text([row("r", "i1", "q1", "1"), row("r", "i2", "q2", "2")]).encode())
        return real_sums(*args)

    monkeypatch.setattr(csv_load, "value_sums", sums_while_the_file_grows)
    assert ingest.manifest_rows(drops, landing=landing) == []
    assert list((landing / "resume_agent").iterdir()) == []
    monkeypatch.setattr(csv_load, "value_sums", real_sums)
    (obs,) = ingest.manifest_rows(drops, landing=landing)
    assert (obs["status"], obs["n_data_records"]) == ("loaded", 2)


def test_the_landing_folder_is_beside_the_warehouse_file_or_private_to_the_process(tmp_path):
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        assert ingest.landing_root(con) == tmp_path / "w.duckdb.landing"
    with duckdb.connect() as con:
        root = ingest.landing_root(con)
    assert root.name == f"memory-{os.getpid()}" and root.parent.name == f"agent_eval_landing-{os.getuid()}"


def test_a_csv_file_rewritten_while_its_rejection_is_read_is_not_recorded(tmp_path, monkeypatch):
    """A file being rewritten can look broken to whichever parser reads it
    then: when the file moved, that is no verdict on it (FileChanged)."""
    from agent_eval.ingest import parse

    drops, landing = tmp_path / "drops", tmp_path / "landing"
    ragged = ",".join(HEADER) + "\nr,i1,q1\n"  # DuckDB fails: the exact parser reads it
    path = write(drops, "rewritten", ragged.encode())

    def read_while_rewritten(source, kind):
        path.write_bytes(csv_text([row("r", "i1", "q1", "1"), row("r", "i2", "q2", "2")]).encode())
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "half a file")

    monkeypatch.setattr(parse, "read_records", read_while_rewritten)
    assert ingest.manifest_rows(drops, landing=landing) == []
    monkeypatch.undo()
    (obs,) = ingest.manifest_rows(drops, landing=landing)
    assert (obs["status"], obs["loader"], obs["n_data_records"]) == ("loaded", "duckdb", 2)
