"""Withdrawing a delivery: `agent-eval withdraw <path> --reason`.

A withdrawal is recorded in the warehouse (operator.withdrawals, a dbt
source): one row per version of the delivery, with who, when and why. The
next build leaves the withdrawn versions out of every current set
(stg_drops__file_versions), so their sets leave every mart, history and
report; their rows stay in raw history. Re-delivering the same bytes does
not bring them back; `--undo` does. Nothing here scores anything.
"""

from __future__ import annotations

import getpass
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

TABLE = "operator.withdrawals"


class WithdrawError(Exception):
    """The withdrawal cannot be recorded; the message says why."""


@dataclass(frozen=True)
class Outcome:
    action: str  # withdraw or undo
    versions: list[tuple[str, str]]  # (source_file, sha256) acted on
    unchanged: list[tuple[str, str]]  # already in the requested state


def _versions(con: duckdb.DuckDBPyConnection, target: str) -> list[tuple[str, str, str | None]]:
    """Every version with rows of the delivery ``target`` (a file, or a
    folder: every file under it), with the latest action on it."""
    return con.execute(
        f"""
        with versions as (
            select distinct source_file, sha256
            from raw.raw_drop_files
            where status in ('loaded', 'restored')
              and (source_file = $target or starts_with(source_file, $target || '/'))
        ),
        latest as (
            select source_file, sha256, action
            from {TABLE}
            qualify row_number() over (partition by source_file, sha256 order by action_seq desc) = 1
        )
        select versions.source_file, versions.sha256, latest.action
        from versions
        left join latest using (source_file, sha256)
        order by 1, 2
        """,
        # paths are identified by their NFC form (ingest.unicode_form)
        {"target": unicodedata.normalize("NFC", target.strip("/"))},
    ).fetchall()


def record(
    db_path: Path, target: str, reason: str, undo: bool = False, user: str | None = None, now: datetime | None = None
) -> Outcome:
    """Withdraw (or with ``undo`` restore) every version of ``target``."""
    if not reason.strip():
        raise WithdrawError("give the reason (--reason): it is kept with the withdrawal")
    if not db_path.exists():
        raise WithdrawError(f"no warehouse at {db_path}; run `agent-eval build` first")
    action = "undo" if undo else "withdraw"
    acted_at = (now or datetime.now(UTC)).replace(tzinfo=None)
    acted_by = user or getpass.getuser()
    with duckdb.connect(str(db_path)) as con:
        exists = con.execute(
            "select count(*) from duckdb_tables() where schema_name = 'operator' and table_name = 'withdrawals'"
        ).fetchone()[0]
        if not exists:
            raise WithdrawError(f"{db_path} predates withdrawals: run `agent-eval build` once, then withdraw")
        found = _versions(con, target)
        if not found:
            raise WithdrawError(
                f"no delivery {target!r} with loaded rows in {db_path} "
                "(give its path under the drops folder, as in ops.load_log.source_file)"
            )
        if undo:
            todo = [(f, s) for f, s, latest in found if latest == "withdraw"]
        else:
            todo = [(f, s) for f, s, latest in found if latest != "withdraw"]
        unchanged = [(f, s) for f, s, _ in found if (f, s) not in todo]
        if todo:
            con.execute("begin")
            start = con.execute(f"select coalesce(max(action_seq), 0) from {TABLE}").fetchone()[0]
            con.executemany(
                f"insert into {TABLE} values (?, ?, ?, ?, ?, ?, ?)",
                [
                    (start + i, f, s, action, reason.strip(), acted_by, acted_at)
                    for i, (f, s) in enumerate(todo, start=1)
                ],
            )
            con.execute("commit")
    return Outcome(action, todo, unchanged)
