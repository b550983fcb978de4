"""Reading the warehouse: one way to turn a query into rows, shared by every
reader (reports, the morning page, charts, gates, the viewer, evaluate, the
judge, the workbook). Imports nothing but DuckDB, so the light commands
(`evaluate`) can use it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import duckdb

Cursor = duckdb.DuckDBPyConnection


def fetch(con: Cursor, sql: str, params: Iterable[Any] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The column names and rows of a query."""
    cursor = con.execute(sql, list(params))
    return [d[0] for d in cursor.description], cursor.fetchall()


def rows(con: Cursor, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
    """The rows of a query, as dicts."""
    names, data = fetch(con, sql, params)
    return [dict(zip(names, row)) for row in data]


def one(con: Cursor, sql: str, params: Iterable[Any] = ()) -> dict[str, Any] | None:
    """The first row of a query as a dict, None when there is none."""
    found = rows(con, sql, params)
    return found[0] if found else None


def scalar(con: Cursor, sql: str, params: Iterable[Any] = ()) -> Any:
    """The first value of the first row."""
    return fetch(con, sql, params)[1][0][0]
