"""Reading an Inspect AI log: its header and its samples, one record each.

An Inspect log is a ``.eval`` zip (current releases compress every member
with zstd, method 93, which Python 3.11's zipfile cannot read; older ones
deflate) or a ``.json`` document. The file format is versioned
(``version`` 1 and 2 are read); Inspect's Python API is its stable surface,
but importing it costs 1.2-1.4 s and 300 MB of dependencies, and its sample
reader about 7 ms a sample, so the warehouse reads the members itself
(docs/decisions/0049-inspect-logs.md).

Samples are read member by member (never the whole log at once). Each
becomes one record holding the fields the warehouse scores - id, epoch,
input, target, answer, scores, error, times and tokens - not the transcript
(messages and events stay in the log file). Unscored values, a bare ``NaN``
token in the log, are kept as the string ``"NaN"`` (JSON has no NaN): the
models read it as unscored, as Inspect does.

A log that cannot be used as a whole (not a zip, truncated, no header nor
journal, an unknown version) raises RejectedFile; a sample that cannot be
used (not JSON, a duplicate (id, epoch), a score of an unexpected type) is
a rejected record naming its member and the reason.
"""

from __future__ import annotations

import io
import json
import math
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_eval.ingest.common import RejectedFile, clipped, is_integer, json_loads
from agent_eval.ingest.records import Record

KNOWN_VERSIONS = (1, 2)
ZSTD_METHOD = 93
HEADER = "header.json"
JOURNAL_START = "_journal/start.json"
SAMPLES_PREFIX = "samples/"
# score values Inspect's value_to_float reads; a dict is one value per key
SCALAR_TYPES = (str, int, float, bool, type(None))


def read_log(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    """The log's header (trimmed) and its sample records."""
    if path.suffix == ".json":
        return _read_json_log(path)
    return _read_eval_log(path)


# ---------------------------------------------------------------- .json logs


def _read_json_log(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    try:
        document = json_loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as err:
        raise RejectedFile(f"not valid JSON: {err}") from None
    if not isinstance(document, dict):
        raise RejectedFile("not an Inspect log: the document is not an object")
    header = _header(document)
    samples = document.get("samples") or []
    if not isinstance(samples, list):
        raise RejectedFile("not an Inspect log: 'samples' is not a list")

    def records() -> Iterator[Record]:
        seen: dict[tuple[str, int], str] = {}
        for index, sample in enumerate(samples, start=1):
            yield _sample_record(index, f"samples[{index - 1}]", sample, seen)

    return header, records()


# ---------------------------------------------------------------- .eval logs


def _read_eval_log(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise RejectedFile(f"not a readable .eval zip (truncated or damaged?): {err}") from None
    members = archive.NameToInfo  # per name, the last entry: Inspect's "last wins"
    if HEADER in members:
        header = _header(_member_json(archive, members[HEADER]))
    elif JOURNAL_START in members:
        # a running or crashed log: no header yet, the journal's start
        start = _member_json(archive, members[JOURNAL_START])
        header = _header({**start, "status": "started"})
    else:
        archive.close()
        raise RejectedFile(f"not an Inspect log: neither {HEADER} nor {JOURNAL_START} in the zip")
    names = [
        info.filename
        for info in archive.infolist()
        if info.filename.startswith(SAMPLES_PREFIX) and members[info.filename] is info
    ]

    def records() -> Iterator[Record]:
        seen: dict[tuple[str, int], str] = {}
        with archive:
            for index, name in enumerate(names, start=1):
                try:
                    sample = _member_json(archive, members[name])
                except RejectedFile as err:
                    yield Record(index, None, name, f"invalid_json: member {name}: {err}")
                    continue
                yield _sample_record(index, name, sample, seen)

    return header, records()


def _member_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    if info.compress_type != ZSTD_METHOD:
        try:
            return archive.read(info)
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError, EOFError) as err:
            raise RejectedFile(f"member {info.filename} cannot be read: {err}") from None
    import zstandard  # only .eval logs need it

    fp = archive.fp
    if fp is None:
        raise RejectedFile(f"member {info.filename} cannot be read: the zip is closed")
    fp.seek(info.header_offset)
    local = fp.read(30)
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise RejectedFile(f"member {info.filename} cannot be read: bad local header")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    fp.seek(info.header_offset + 30 + name_len + extra_len)
    compressed = fp.read(info.compress_size)
    if len(compressed) < info.compress_size:
        raise RejectedFile(f"member {info.filename} cannot be read: truncated")
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(compressed), read_across_frames=True)
        data = reader.read()
    except zstandard.ZstdError as err:
        raise RejectedFile(f"member {info.filename} cannot be read: zstd: {err}") from None
    if zlib.crc32(data) != info.CRC:
        raise RejectedFile(f"member {info.filename} cannot be read: CRC mismatch")
    return data


def _member_json(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Any:
    data = _member_bytes(archive, info)
    try:
        return json_loads(data)
    except (ValueError, UnicodeDecodeError) as err:
        raise RejectedFile(f"member {info.filename} is not JSON: {err}") from None


# ---------------------------------------------------------------- the fields


def _header(log: dict[str, Any]) -> dict[str, Any]:
    """The log's header, trimmed to what the warehouse reads (raises
    RejectedFile for an unknown version)."""
    version = log.get("version")
    if version not in KNOWN_VERSIONS:
        raise RejectedFile(f"unknown Inspect log version {version!r} (read: {', '.join(map(str, KNOWN_VERSIONS))})")
    spec = log.get("eval") or {}
    config = spec.get("config") or {}
    dataset = spec.get("dataset") or {}
    stats = log.get("stats") or {}
    error = log.get("error")
    return _finite(
        {
            "version": version,
            "status": log.get("status"),
            "eval_id": spec.get("eval_id"),
            "run_id": spec.get("run_id"),
            "task": spec.get("task"),
            "task_version": spec.get("task_version"),
            "task_id": spec.get("task_id"),
            "model": spec.get("model"),
            "created": spec.get("created"),
            "tool_version": (spec.get("packages") or {}).get("inspect_ai"),
            "epochs": config.get("epochs"),
            "epochs_reducer": config.get("epochs_reducer"),
            "scorers": [s.get("name") for s in spec.get("scorers") or [] if isinstance(s, dict)],
            "dataset_samples": dataset.get("samples"),
            "sample_ids": dataset.get("sample_ids"),
            "results": log.get("results"),
            "started_at": stats.get("started_at"),
            "completed_at": stats.get("completed_at"),
            "model_usage": stats.get("model_usage"),
            "error": error.get("message") if isinstance(error, dict) else error,
        }
    )


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinity as the string "NaN" / "Infinity"
    / "-Infinity" (what Inspect wrote as a bare token; JSON has no such number)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _text(value: Any) -> str | None:
    """A sample's input or target as text: a string as it is; chat messages
    as their contents, one per line; a list of targets joined by ' | '."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for item in value:
            if isinstance(item, dict):
                content = item.get("content")
                if isinstance(content, list):  # content blocks
                    content = " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
                parts.append(f"{item.get('role', '')}: {content}")
            else:
                parts.append(str(item))
        return "\n".join(parts) if value and isinstance(value[0], dict) else " | ".join(parts)
    return json.dumps(value, ensure_ascii=False)


def _bad_score(scores: dict[str, Any]) -> str | None:
    for name, score in scores.items():
        if not isinstance(score, dict):
            return f"score {name!r} is not an object"
        value = score.get("value")
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(item, SCALAR_TYPES):
                    return f"score {name!r} key {key!r} is a {type(item).__name__}, not a number, string or boolean"
        elif not isinstance(value, SCALAR_TYPES):
            return f"score {name!r} is a {type(value).__name__}, not a number, string, boolean or dict"
    return None


def _sample_record(index: int, where: str, sample: Any, seen: dict[tuple[str, int], str]) -> Record:
    def rejected(reason: str) -> Record:
        return Record(index, None, clipped(json.dumps(_finite(sample), ensure_ascii=False)), reason)

    if not isinstance(sample, dict) or "id" not in sample:
        return rejected(f"invalid_sample: {where} is not a sample (no id)")
    # EvalSample.id is int | str, its epoch a positive int (staging: integer)
    if not (isinstance(sample["id"], str) or is_integer(sample["id"])):
        return rejected(f"invalid_sample: {where}: id {_finite(sample['id'])!r} is not a string or an integer")
    epoch = sample.get("epoch", 1)
    if not is_integer(epoch, 32) or epoch < 1:
        return rejected(f"invalid_sample: {where}: epoch {_finite(epoch)!r} is not a positive integer")
    key = (str(sample["id"]), epoch)
    if key in seen:
        return rejected(f"duplicate_sample: id {sample['id']!r} epoch {epoch} is also {seen[key]}")
    seen[key] = where
    scores = sample.get("scores") or {}
    if not isinstance(scores, dict):
        return rejected(f"invalid_score: {where}: scores is not an object")
    problem = _bad_score(scores)
    if problem:
        return rejected(f"invalid_score: {where}: {problem}")
    output = sample.get("output") or {}
    error = sample.get("error")
    values = {
        "member": where,
        "id": sample["id"],
        "epoch": epoch,
        "input": _text(sample.get("input")),
        "target": _text(sample.get("target")),
        "answer": output.get("completion") if isinstance(output, dict) else None,
        "scores": {
            name: {
                "value": score.get("value"),
                "answer": score.get("answer"),
                "explanation": score.get("explanation"),
            }
            for name, score in scores.items()
        },
        "error": error.get("message") if isinstance(error, dict) else error,
        "total_time": sample.get("total_time"),
        "working_time": sample.get("working_time"),
        "model_usage": sample.get("model_usage"),
    }
    return Record(index, _finite(values))
