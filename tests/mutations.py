"""Damaged copies of the sample drops, written by code: each is one file
of the bundled samples (real tools' outputs and the built-in agents'
exports) with one thing changed: a value of another type (text, a huge
number, a lone surrogate, an empty list...), a key deleted, an element
repeated, a line cut, a CSV cell or header changed, a workbook cell or
sheet, a zip member's JSON; or the whole file made odd (empty, NUL bytes,
a BOM, CRLF, nesting deeper than Python's decoder recurses, a long
integer, trailing text). ``write_night`` puts each in a date folder of its
own, with the files it travels with."""

from __future__ import annotations

import copy
import csv
import datetime
import io
import json
import random
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

from agent_eval.agents.inspect.reader import _member_bytes

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "drops"
ODD = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    -0.0,
    1e308,
    -1e308,
    10**30,
    "",
    "x",
    "NaN",
    "1e400",
    "\u0000",
    "한",
    "\ud800",
    [],
    {},
    [None],
    {"a": None},
    [1, "a", {}],
    3.0,
    2**63,
    -(2**63) - 1,
]


def nodes(v, path=()):
    yield path
    if isinstance(v, dict):
        for k, x in v.items():
            yield from nodes(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v[:50]):
            yield from nodes(x, path + (i,))


def get(v, path):
    for p in path:
        v = v[p]
    return v


def mutate_value(doc, rng):
    doc = copy.deepcopy(doc)
    paths = [p for p in nodes(doc) if p]
    if not paths:
        return rng.choice(ODD), "root"
    path = rng.choice(paths)
    parent = get(doc, path[:-1])
    key = path[-1]
    op = rng.random()
    if op < 0.15 and isinstance(parent, dict):
        del parent[key]
        what = f"del {path}"
    elif op < 0.2 and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[key]))
        what = f"dup {path}"
    else:
        new = rng.choice(ODD)
        parent[key] = new
        what = f"set {path}={new!r}"[:200]
    return doc, what


def dumps(doc, rng):
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.1:
        text = text.replace('"NaN"', "NaN")
    return text


def mutate_json_text(text, rng, jsonl):
    if jsonl:
        lines = text.splitlines()
        if not lines:
            return text + "{}\n", "add line"
        i = rng.randrange(len(lines))
        r = rng.random()
        if r < 0.1:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
            what = f"truncate line {i + 1}"
        elif r < 0.15:
            lines.insert(i, lines[i])
            what = f"repeat line {i + 1}"
        elif r < 0.2:
            lines[i] = rng.choice(["[]", "null", "1", '"s"', "{}"])
            what = f"line {i + 1} -> {lines[i]}"
        else:
            try:
                doc = json.loads(lines[i])
            except ValueError:
                return text, "unparsable"
            doc, what = mutate_value(doc, rng)
            lines[i] = dumps(doc, rng)
            what = f"line {i + 1}: {what}"
        return "\n".join(lines) + "\n", what
    r = rng.random()
    if r < 0.05:
        return text[: rng.randrange(len(text))], "truncate"
    doc = json.loads(text)
    doc, what = mutate_value(doc, rng)
    return dumps(doc, rng), what


def mutate_csv(text, rng):
    rows = list(csv.reader(io.StringIO(text)))
    r = rng.random()
    i = rng.randrange(len(rows))
    j = rng.randrange(max(1, len(rows[i])))
    if r < 0.1 and i == 0:
        rows[0][j] = rng.choice(["", "x", rows[0][j].upper()])
        what = f"header[{j}]"
    elif r < 0.2:
        rows[i] = rows[i][:j]
        what = f"short row {i}"
    else:
        if not rows[i]:
            return text, "empty"
        v = rng.choice(
            ["", "NaN", "1e400", "-1", "abc", "1,5", "한", '"', "\n", "2026-13-45", "true", " 3 ", "∞", "9" * 40]
        )
        rows[i][j] = v
        what = f"cell[{i}][{j}]={v!r}"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue(), what


def sample_members(log: bytes) -> list[str]:
    """The sample members of an Inspect AI .eval log, in order."""
    with zipfile.ZipFile(io.BytesIO(log)) as archive:
        return [name for name in archive.namelist() if name.startswith("samples/")]


def rewrite_members(log: bytes, changes: dict[str, Callable[[bytes], bytes]]) -> bytes:
    """An Inspect AI .eval log with each member named in ``changes``
    rewritten by it; every member decompressed by the reader and stored
    (zipfile cannot write zstd)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(log)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = _member_bytes(source, info)
            if info.filename in changes:
                data = changes[info.filename](data)
            target.writestr(info.filename, data, zipfile.ZIP_STORED)
    return out.getvalue()


def mutate_zip(data, rng):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        name = rng.choice([n for n in archive.namelist() if n.endswith(".json")])
    what = ""

    def change(member: bytes) -> bytes:
        nonlocal what
        text, what = mutate_json_text(member.decode("utf-8"), rng, False)
        return text.encode("utf-8", "surrogatepass")

    return rewrite_members(data, {name: change}), f"{name}: {what}"


def mutate_xlsx(path, rng, out_path):
    import openpyxl

    wb = openpyxl.load_workbook(path)
    ws = rng.choice(wb.worksheets)
    cells = [c for row in ws.iter_rows() for c in row]
    r = rng.random()
    if r < 0.05 and len(wb.worksheets) > 1:
        wb.remove(ws)
        what = f"drop sheet {ws.title}"
    elif cells:
        c = rng.choice(cells)
        v = rng.choice([None, "", "NaN", "abc", -1, 1.5, 1e308, "1e400", True, "한", "=1/0", 10**20])
        c.value = v
        what = f"{ws.title}!{c.coordinate}={v!r}"
    else:
        what = "none"
    wb.save(out_path)
    return what


def mutant(rel: str, rng) -> tuple[bytes, str]:
    path = SAMPLES / rel
    if rel.endswith(".xlsx"):
        out = io.BytesIO()
        what = mutate_xlsx(path, rng, out)
        return out.getvalue(), what
    data = path.read_bytes()
    if rel.endswith(".eval"):
        return mutate_zip(data, rng)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp949")
    if rel.endswith(".csv"):
        t, what = mutate_csv(text, rng)
    else:
        t, what = mutate_json_text(text, rng, rel.endswith(".jsonl"))
    return t.encode("utf-8", "surrogatepass"), what


def group_of(rel: str) -> list[str]:
    """The files that travel with ``rel`` (same folder; an engagement run's folder)."""
    p = Path(rel)
    parts = p.parts
    if "engagement" in parts:
        run = Path(*parts[: parts.index("engagement") + 2])
        return [str(q.relative_to(SAMPLES)) for q in (SAMPLES / run).rglob("*") if q.is_file()]
    if len(parts) == 2:
        return [rel]
    return [str(q.relative_to(SAMPLES)) for q in (SAMPLES / p.parent).iterdir() if q.is_file()]


def sample_files():
    return sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*") if p.is_file())


def write_mutant(root: Path, date: str, rel: str, data: bytes):
    """``rel``'s group under ``root/date`` with ``rel`` replaced by ``data``."""
    for g in group_of(rel):
        target = root / date / Path(*Path(g).parts[1:])
        target.parent.mkdir(parents=True, exist_ok=True)
        if g == rel:
            target.write_bytes(data)
        else:
            shutil.copyfile(SAMPLES / g, target)


def oddities(rel: str, data: bytes):
    """Whole-file variants of ``rel``'s bytes."""
    yield "empty", b""
    yield "nul", b"\x00" * 10
    yield "bom", b"\xef\xbb\xbf" + data
    yield "crlf", data.replace(b"\n", b"\r\n")
    yield "deep-array", b"[" * 5000 + b"]" * 5000
    yield "trailing-text", data + b"garbage"
    if rel.endswith(".jsonl"):
        lines = data.split(b"\n")
        yield "deep-line", b"\n".join([lines[0], b'{"a":' * 5000 + b"1" + b"}" * 5000, *lines[1:]])
        yield "long-integer-line", b"\n".join([lines[0], b'{"x": ' + b"9" * 5000 + b"}", *lines[1:]])


def write_night(drops: Path, first_day, mutants_per_file: int, seed: int) -> list[dict]:
    """Every sample file's mutants and oddities, one date folder each from
    ``first_day``; returns what each folder holds."""
    written, day = [], first_day
    for rel in sample_files():
        data = (SAMPLES / rel).read_bytes()
        variants = [mutant(rel, random.Random(f"{seed}-{rel}-{k}")) for k in range(mutants_per_file)]
        for changed, what in [*variants, *((v, name) for name, v in oddities(rel, data))]:
            date = day.isoformat()
            day += datetime.timedelta(days=1)
            write_mutant(drops, date, rel, changed)
            written.append({"date": date, "file": rel, "change": what})
    return written
