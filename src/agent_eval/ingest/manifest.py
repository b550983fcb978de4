"""Step 1: the manifest. Every file under the drops folder observed, matched to a kind, hashed, decoded and checked, its records counted; new observations only."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa

from agent_eval.drop_kinds import DATE_DIR, DropKind
from agent_eval.ingest import csv_load
from agent_eval.ingest.common import (
    FileChanged,
    RejectedFile,
    clipped,
    file_modified_at,
    is_drop_date,
    resolve_drops_dir,
    sha256_of,
    sha256_of_file,
    surrogates_escaped,
)
from agent_eval.ingest.kinds import kinds, match_kind, match_kind_ignoring_case
from agent_eval.ingest.landing import Landing
from agent_eval.ingest.parse import parse_csv, parse_file, parse_log, start_csv_parse
from agent_eval.ingest.unicode_form import NAME_NOT_NFC, TEXT_NOT_NFC, nfc

MANIFEST_SCHEMA = pa.schema(
    [
        ("source_file", pa.string()),
        ("drop_date", pa.string()),
        ("kind", pa.string()),
        ("file_name", pa.string()),
        ("sha256", pa.string()),
        ("size_bytes", pa.int64()),
        ("modified_at", pa.timestamp("us")),
        ("encoding", pa.string()),
        ("status", pa.string()),
        ("reject_reason", pa.string()),
        ("duplicate_of", pa.string()),
        ("n_data_records", pa.int64()),
        ("n_lines", pa.int64()),
        ("loader", pa.string()),
        ("loader_note", pa.string()),
        ("extra_columns", pa.string()),
        ("observation_seq", pa.int64()),
        ("loaded_at", pa.timestamp("us")),
        ("load_id", pa.string()),
    ]
)


@dataclass(frozen=True)
class Observation:
    """One earlier row of the manifest."""

    source_file: str
    sha256: str
    status: str
    observation_seq: int
    size_bytes: int | None = None
    modified_at: datetime | None = None


@dataclass(frozen=True)
class DropEntry:
    """Something under the drops folder that a night accounts for."""

    relative: str  # posix path under drops_dir
    path: Path
    problem: tuple[str, str] | None = None  # (status, reason) when it is not read


HIDDEN = "hidden {what} (its name starts with '.'): not read"


# a drop folder dated after the build's date (AGENT_EVAL_AS_OF / var
# freshness_as_of, else today in UTC) by more than this many days: a typo or
# a clock gone wrong, which would take over the morning page night after night
FUTURE_TOLERANCE_DAYS = 1
FUTURE = (
    "drop folder '{folder}' is a date in the future (after the build's date, "
    "AGENT_EVAL_AS_OF or today, by more than 1 day): not read until that date"
)

REMOVED = "no longer under the drops folder (its last loaded version, if any, keeps its scores)"


def list_drop_entries(drops_dir: Path) -> list[DropEntry]:
    """Everything under ``drops_dir`` a night accounts for, sorted by path:
    every regular file (to be read), and - not read, each with the status
    and reason ``ops.load_log`` records - hidden files and folders and links
    to folders (ignored), broken symbolic links, folders named like a drop
    file and files that are not regular files (rejected). Nothing under the
    folder is skipped without a trace.

    One ``os.scandir`` per folder, its entries' types as the directory
    listing gives them: the scan costs a few microseconds a file, so a
    drops folder of months of nights is listed in well under a second."""
    if not drops_dir.is_dir():
        return []
    known = kinds()
    found: list[DropEntry] = []

    def entry(relative: str, path: str, problem: tuple[str, str] | None = None) -> None:
        # identity is the NFC form of the path (a macOS name is NFD)
        found.append(DropEntry(nfc(relative), Path(path), problem))

    def walk(folder: str, prefix: str) -> None:
        try:
            with os.scandir(folder) as listing:
                items = sorted(listing, key=lambda e: e.name)
        except OSError:
            return  # as os.walk: a folder that cannot be listed has nothing to read
        for item in items:
            name, relative = item.name, prefix + item.name
            try:
                is_dir = item.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if name.startswith("."):
                    entry(relative, item.path, ("ignored", HIDDEN.format(what="folder")))
                elif match_kind(relative, known) is not None:
                    entry(relative, item.path, ("rejected", "a folder, not a file"))
                elif item.is_symlink():
                    entry(relative, item.path, ("ignored", "a link to a folder: not followed"))
                else:
                    walk(item.path, relative + "/")
            elif name.startswith("."):
                entry(relative, item.path, ("ignored", HIDDEN.format(what="file")))
            elif item.is_symlink() and not os.path.exists(item.path):
                entry(relative, item.path, ("rejected", "a broken symbolic link: its target does not exist"))
            elif not item.is_file():
                entry(relative, item.path, ("rejected", "not a regular file (a device, pipe or socket)"))
            else:
                entry(relative, item.path)

    walk(os.fspath(drops_dir), "")
    found.sort(key=lambda e: (e.relative, e.path.as_posix()))
    # two names that differ only in normalization are one path: the first
    # (in the order of their bytes) is read, the others rejected
    for i in range(1, len(found)):
        if found[i].relative == found[i - 1].relative and found[i].problem is None:
            found[i] = DropEntry(
                found[i].relative + f" ({found[i].path.name!a})",
                found[i].path,
                ("rejected", "another file has the same name in Unicode NFC: rename one of them"),
            )
    return found


def not_read_sha256(reason: str) -> str:
    """The sha256 recorded for something that was not read (no bytes to
    hash): the hash of its reason, so the same problem is logged once, and
    a new one (or the file becoming readable) is a new observation."""
    return sha256_of(f"<not read> {reason}".encode())


def manifest_rows(
    drops_dir: str | Path,
    history: Sequence[Observation] = (),
    load_id: str = "",
    now: datetime | None = None,
    landing: Path | None = None,
    as_of: date | None = None,
) -> list[dict[str, Any]]:
    """New observations of the files now under ``drops_dir``.

    Every new loaded version is parsed once, here, and its rows land in the
    folder ``landing`` (``ingest.landing``; emptied first) for the loader
    models; None lands them in a temporary folder removed on return (a
    caller that only wants the observations).

    ``history`` is the manifest so far. A path whose latest observation has
    the same sha256 adds nothing (re-runs are no-ops). Otherwise the new
    observation's status is:

    - ``loaded``: new bytes, readable; its records go to raw history.
    - ``repeat``: bytes already loaded from another path; counted once.
    - ``restored``: the path returns to bytes it held before; those rows
      are already in raw history and become current again.
    - ``rejected``: unreadable, missing required columns, a drop folder
      that is not a date, or one dated after ``as_of`` (default: today,
      UTC) plus FUTURE_TOLERANCE_DAYS (not read: it is read on the night
      its date has come); ``reject_reason`` says which.
    - ``ignored``: a file that matches no input kind, a hidden file or
      folder, a link to a folder (recorded, not read).
    - ``removed``: a path observed before is no longer there. Its rows stay
      in raw history and its last loaded version stays current (raw history
      is the record); a rejection it had is no longer the latest word.
    """
    root = resolve_drops_dir(drops_dir)
    if not root.is_dir():
        raise FileNotFoundError(
            f"drops_dir {root} does not exist: set AGENT_EVAL_DROPS (or `agent-eval build --drops`) "
            "to the folder holding <YYYY-MM-DD>/ drops"
        )
    with contextlib.ExitStack() as stack:
        if landing is None:
            landing = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="agent_eval_landing_")))
        folder = Landing(landing)
        folder.clear()
        today = as_of or (now or datetime.now(UTC)).date()
        return _observations(root, history, load_id, now, folder, today + timedelta(days=FUTURE_TOLERANCE_DAYS))


def _observations(
    root: Path,
    history: Sequence[Observation],
    load_id: str,
    now: datetime | None,
    landing: Landing,
    latest_date: date,
) -> list[dict[str, Any]]:
    loaded_at = (now or datetime.now(UTC)).replace(tzinfo=None)
    known = kinds()
    latest_by_path: dict[str, Observation] = {}
    loaded_sha_path: dict[str, str] = {}
    loaded_by_path: dict[str, set[str]] = {}
    for obs in sorted(history, key=lambda o: o.observation_seq):
        latest_by_path[obs.source_file] = obs
        if obs.status == "loaded":
            loaded_sha_path.setdefault(obs.sha256, obs.source_file)
            loaded_by_path.setdefault(obs.source_file, set()).add(obs.sha256)
    seq = max((o.observation_seq for o in history), default=0)

    rows: list[dict[str, Any]] = []

    def add(row: dict[str, Any]) -> None:
        nonlocal seq
        seq += 1
        row["observation_seq"] = seq
        rows.append(row)

    def observation(
        relative: str, path: Path, kind: DropKind | None, sha: str, size: int | None, modified_at: datetime | None
    ) -> dict[str, Any]:
        named_nfc = path.relative_to(root).as_posix() == relative if path.is_relative_to(root) else True
        return {
            "source_file": relative,
            "drop_date": relative.split("/", 1)[0],
            "kind": kind.name if kind else None,
            "file_name": path.name,
            "sha256": sha,
            "size_bytes": size,
            "modified_at": modified_at,
            "encoding": None,
            "status": None,
            "reject_reason": None,
            "duplicate_of": None,
            "n_data_records": None,
            "n_lines": None,
            "loader": None,
            "loader_note": None if named_nfc else NAME_NOT_NFC,
            "extra_columns": None,
            "loaded_at": loaded_at,
            "load_id": load_id,
        }

    def not_read(relative: str, path: Path, status: str, reason: str) -> None:
        """Log what was not read, once per problem."""
        sha = not_read_sha256(reason)
        latest = latest_by_path.get(relative)
        if latest is not None and latest.sha256 == sha:
            return
        try:
            modified_at: datetime | None = datetime.fromtimestamp(path.lstat().st_mtime, UTC).replace(tzinfo=None)
        except OSError:
            modified_at = None
        add(
            observation(relative, path, match_kind(relative, known), sha, None, modified_at)
            | {"status": status, "reject_reason": reason}
        )

    entries = list_drop_entries(root)
    companion_of = _companion_owners(root, entries)
    for found in entries:
        relative, path = found.relative, found.path
        if found.problem is not None:
            not_read(relative, path, *found.problem)
            continue
        folder = relative.split("/", 1)[0]
        if is_drop_date(folder) and date.fromisoformat(folder) > latest_date:
            # not read (its reason's hash is its sha256): read on the night
            # its date has come, whatever was logged before
            not_read(relative, path, "rejected", FUTURE.format(folder=folder))
            continue
        latest = latest_by_path.get(relative)
        kind = match_kind(relative, known)
        companions = kind.companions(path) if kind is not None and kind.companions is not None else ()
        try:
            modified_at, size_now = _stat_with(path, companions)
        except OSError as err:
            not_read(relative, path, "rejected", f"cannot be read: {err.strerror or err}")
            continue
        if latest is not None and latest.modified_at == modified_at and latest.size_bytes == size_now:
            continue  # same size and time as last observed: not read again
        scan: csv_load.FileScan | None = None
        speculation: csv_load.Speculation | None = None
        data = b""
        if kind is not None and kind.fmt == "csv" and is_drop_date(relative.split("/", 1)[0]):
            # CSV files can be large: stream them, and let DuckDB parse the
            # file at the same time (its result is used if the file is new);
            # outside the read errors below: a landing folder that cannot be
            # written fails the build, it is no fault of the file
            speculation = start_csv_parse(path, kind, landing)
        try:
            if kind is not None and kind.fmt == "csv":
                scan = csv_load.scan_file(path)
                sha, size = scan.sha256, scan.counts.size
            elif kind is not None and kind.fmt == "log":
                sha, size = _sha256_with(path, companions), size_now  # its reader streams it
            else:
                data = path.read_bytes()
                sha, size = sha256_of(data), len(data)
        except OSError as err:
            if speculation is not None:
                speculation.cancel()
            not_read(relative, path, "rejected", f"cannot be read: {err.strerror or err}")
            continue
        new_bytes = (
            (latest is None or latest.sha256 != sha)
            and kind is not None
            and sha not in loaded_by_path.get(relative, set())
            and sha not in loaded_sha_path
        )
        if speculation is not None and not new_bytes:
            speculation.cancel()
            speculation = None
        if latest is not None and latest.sha256 == sha:
            continue  # nothing new at this path
        drop_date = relative.split("/", 1)[0]
        row = observation(relative, path, kind, sha, size, modified_at)
        misnamed = match_kind_ignoring_case(relative) if kind is None else None
        if misnamed is not None:
            row["status"] = "rejected"
            row["reject_reason"] = (
                f"file name looks like a {misnamed.name} drop but differs in letter case: "
                f"rename it to match {misnamed.pattern.pattern.replace(DATE_DIR, '<YYYY-MM-DD>')}"
            )
        elif kind is None and relative in companion_of:
            row["status"] = "ignored"
            row["reject_reason"] = f"read with {companion_of[relative]} (its companion file: part of its version)"
        elif kind is None:
            row["status"] = "ignored"
            row["reject_reason"] = "file name matches no input kind"
        elif not is_drop_date(drop_date):
            row["status"] = "rejected"
            row["reject_reason"] = f"drop folder '{drop_date}' is not a date (YYYY-MM-DD)"
        elif sha in loaded_by_path.get(relative, set()):
            row["status"] = "restored"
            row["duplicate_of"] = relative
        elif sha in loaded_sha_path and kind.dedupe_by_content:
            row["status"] = "repeat"
            row["duplicate_of"] = loaded_sha_path[sha]
        else:
            try:
                if scan is not None:
                    facts = parse_csv(path, kind, scan, landing, speculation)
                    if not scan.is_nfc and (facts.get("encoding") or "").startswith("utf-8"):
                        facts["loader_note"] = "; ".join(filter(None, [facts.get("loader_note"), TEXT_NOT_NFC]))
                elif kind.fmt == "log":
                    facts = parse_log(path, kind, sha, landing)
                else:
                    facts = parse_file(data, kind, sha, landing)
                notes = [row["loader_note"], facts.pop("loader_note", None)]
                row.update(facts)
                row["loader_note"] = "; ".join(filter(None, notes)) or None
                row["status"] = "loaded"
            except RejectedFile as err:
                row["status"] = "rejected"
                # a reason may quote the file (a key): keep a lone surrogate as its escape
                row["reject_reason"] = surrogates_escaped(str(err))
            except FileChanged:
                continue  # changed while read: the next build observes the new bytes
            except Exception as err:  # no reader's fault stops the night
                landing.discard(kind.name, sha)
                row["status"] = "rejected"
                row["reject_reason"] = clipped(surrogates_escaped(f"could not be read: {type(err).__name__}: {err}"))
            finally:
                if speculation is not None:
                    speculation.cancel()  # a no-op once its landing was used
            if row["status"] == "loaded":
                loaded_sha_path[sha] = relative
                loaded_by_path.setdefault(relative, set()).add(sha)
        add(row)
    # a path no longer under the folder: logged once, so a rejected file that
    # was deleted stops being reported; a loaded version keeps its scores
    present = {found.relative for found in entries}
    for relative, latest in sorted(latest_by_path.items()):
        if relative not in present and latest.status != "removed":
            add(
                observation(
                    relative, root / relative, match_kind(relative, known), not_read_sha256(REMOVED), None, None
                )
                | {"status": "removed", "reject_reason": REMOVED}
            )
    return rows


def _companion_owners(root: Path, entries: Sequence[DropEntry]) -> dict[str, str]:
    """The companion files of the drop files whose kind names some
    (``DropKind.companions``), each mapped to the file it is read with."""
    owners: dict[str, str] = {}
    known = kinds()
    for found in entries:
        kind = match_kind(found.relative, known) if found.problem is None else None
        if kind is None or kind.companions is None:
            continue
        for companion in kind.companions(found.path):
            if companion.is_relative_to(root):
                owners.setdefault(nfc(companion.relative_to(root).as_posix()), found.relative)
    return owners


def _stat_with(path: Path, companions: Sequence[Path]) -> tuple[datetime, int]:
    """A file's modification time and size; with companions, the latest
    time and the total size of the file and the companions there are."""
    stat = path.stat()
    modified_at, size = datetime.fromtimestamp(stat.st_mtime, UTC).replace(tzinfo=None), stat.st_size
    for companion in companions:
        if companion.is_file():
            modified_at = max(modified_at, file_modified_at(companion))
            size += companion.stat().st_size
    return modified_at, size


def _sha256_with(path: Path, companions: Sequence[Path]) -> str:
    """A file's sha256; with companions, the sha256 of its own and each
    companion's (or that it is missing), so the version changes with any."""
    sha = sha256_of_file(path)
    if not companions:
        return sha
    parts = [sha]
    for companion in companions:
        parts.append(f"{companion.name}:{sha256_of_file(companion) if companion.is_file() else 'missing'}")
    return sha256_of("\n".join(parts).encode())


def manifest_table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=MANIFEST_SCHEMA)
