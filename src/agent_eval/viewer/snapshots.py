"""Read-only snapshots of the published file, one per published version.

The nightly publish step replaces the published file with `os.replace`
(agent_eval.publish). The viewer must (1) never hold the working database,
(2) never block a build, (3) pick up a new published file at the next
request, and (4) let a request that is under way finish on the snapshot it
started with.

Each snapshot is its own in-memory DuckDB database that ATTACHes the
published file READ_ONLY. A new in-memory database per version matters:
DuckDB's Python client shares one database instance per file path, so a
second `duckdb.connect(path)` would hand back the old inode; an ATTACH from a
fresh in-memory database opens the path again and gets the new file. The old
snapshot is closed when its last request ends; until then the old inode
lives (POSIX), so that request reads a complete, consistent old file.

Each request gets its own cursor (DuckDB connections are not shared between
threads). External access is switched off after the ATTACH, so no query can
read or write a file, and the configuration is locked.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

import duckdb

CATALOG = "pub"


class NotPublished(RuntimeError):
    """There is no published file yet (no successful build has published)."""


@dataclass
class Snapshot:
    key: tuple[int, int, int, int]  # device, inode, size, mtime_ns of the file it opened
    con: duckdb.DuckDBPyConnection
    users: int = 0
    retired: bool = False

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A connection of its own for one request, reading the published catalog."""
        cur = self.con.cursor()
        cur.execute(f"use {CATALOG}")
        return cur


def _key(path: Path) -> tuple[int, int, int, int]:
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def open_snapshot(path: Path, attempts: int = 5) -> Snapshot:
    """A new in-memory DuckDB with the published file attached read-only.

    The file is stat'ed before and after the ATTACH; when both agree, the
    ATTACH opened that file. When a publish renamed a new file in between,
    it tries again, so a snapshot is never labelled with a file it did not
    open (which would keep serving the old data until the next publish).
    """
    literal = str(path).replace("'", "''")
    for _ in range(attempts):
        before = _key(path)
        con = duckdb.connect(":memory:", config={"threads": 2})
        try:
            con.execute(f"attach '{literal}' as {CATALOG} (read_only)")
            con.execute(f"use {CATALOG}")
            con.execute("set enable_external_access = false")
            con.execute("set lock_configuration = true")
        except BaseException:
            con.close()
            raise
        if _key(path) == before:
            return Snapshot(key=before, con=con)
        con.close()
    raise RuntimeError(f"{path} kept changing while it was opened ({attempts} attempts)")


class Snapshots:
    """The current snapshot of one published file; swaps when the file does."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._current: Snapshot | None = None

    def acquire(self) -> Snapshot:
        """The snapshot for a new request (counted until `release`)."""
        try:
            key = _key(self.path)
        except FileNotFoundError as err:
            raise NotPublished(
                f"no published file at {self.path}: run `agent-eval build` (or `agent-eval demo`) first"
            ) from err
        with self._lock:
            current = self._current
            if current is None or current.key != key:
                fresh = open_snapshot(self.path)
                if current is not None:
                    self._retire(current)
                self._current = current = fresh
            current.users += 1
            return current

    def release(self, snapshot: Snapshot) -> None:
        with self._lock:
            snapshot.users -= 1
            if snapshot.retired and snapshot.users == 0:
                snapshot.con.close()

    def _retire(self, snapshot: Snapshot) -> None:
        snapshot.retired = True
        if snapshot.users == 0:
            snapshot.con.close()

    def close(self) -> None:
        with self._lock:
            if self._current is not None:
                self._retire(self._current)
                self._current = None
