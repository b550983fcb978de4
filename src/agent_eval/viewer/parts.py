"""What an agent's viewer part uses of the viewer: the request errors, the
parameter parsers, the item table it declares (``ItemTable``) and the
downloads of its own tables (``Table``). Below
the registry: it imports nothing that reads it, so an agent's package may
import it (agent_eval.viewer.pages, which does read the registry, builds
the pages from these)."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from datetime import date
from typing import Any

from agent_eval.db import Cursor, one

PER_PAGE = (25, 50, 100, 200)
MAX_QUERY_CHARS = 200  # a longer free-text search is a malformed request


class BadRequest(ValueError):
    """A malformed parameter: the page answers 400 with this message."""


class NotFound(LookupError):
    """An unknown set, item, series or run: the page answers 404."""


def pretty_json(text: str | None) -> tuple[str | None, bool]:
    """(text to show, whether it parsed): JSON indented with Korean kept as is;
    text that is not JSON is shown as delivered."""
    if text is None or not text.strip():
        return None, False
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, indent=2), True
    except ValueError:
        return text, False


@dataclass(frozen=True)
class Table:
    """One download (agent_eval.viewer.downloads): its query (text from the
    viewer's or an agent's code, never from the request), its parameters
    (every request value) and the stem of the file's name."""

    sql: str
    params: list[Any]
    name: str


def set_in(cur: Cursor, table: str, set_id: str | None, what: str) -> str:
    """The set of a download's ``id`` in an agent's ``table`` (text from
    the agent's code), NFC as set ids are stored; 400 without an id, 404
    for a set the table does not hold (``what`` names it)."""
    if not set_id:
        raise BadRequest("id (the set id) is required")
    found = one(cur, f"select set_id from {table} where set_id = ?", [unicodedata.normalize("NFC", set_id)])
    if found is None:
        raise NotFound(f"no {what} {set_id!r} in the published file")
    return found["set_id"]


# ---------------------------------------------------------------- parameters


def parse_int(value: str | None, name: str, default: int, low: int = 1, high: int | None = None) -> int:
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number, not {value[:40]!r}") from None
    if number < low or (high is not None and number > high):
        raise BadRequest(f"{name} must be between {low} and {high}" if high else f"{name} must be at least {low}")
    return number


def parse_date(value: str | None, name: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise BadRequest(f"{name} must be a date YYYY-MM-DD, not {value[:40]!r}") from None


def parse_choice(value: str | None, name: str, choices: list[str] | tuple[str, ...]) -> str | None:
    if value is None or value == "":
        return None
    if value not in choices:
        raise BadRequest(f"{name} must be one of {', '.join(map(str, choices))}, not {value[:40]!r}")
    return value


# ---------------------------------------------------------------- item tables


# what the item table sorts by (columns of both item marts)
ITEM_SORTS = ("line_number", "round_order", "status", "latency_sec", "latency_score", "accuracy_score", "query_id")


@dataclass(frozen=True)
class ItemTable:
    """How one agent's items are filtered, sorted and shown: an agent's
    viewer part declares one (ITEM_TABLE) to get the item table, the item
    pages and the score and latency distributions."""

    table: str
    segment: str  # the column of the segment filter (track / latency class)
    segment_label: str
    # (value, label) of each segment: the value filters the column, the
    # label (a seed's display label, e.g. `Track 1`) is what the page shows
    segment_choices_sql: str
    rounds_table: str
    sorts: tuple[str, ...]
    score_histogram: str  # the mart of the set's score histograms (series accuracy_score)
    latency_histogram: str  # the mart of the set's latency histograms (panels of rpt_latency_histogram_bins)
    rounds_sql: str  # the per-round table of the distributions (one ? : the set)
    latency_sql: str  # items per latency score and segment (one ? : the set)
    latency_label: str  # what the latency distribution is by
    status_counts: bool = False  # rounds_sql gives n_ok / n_partial / n_error / n_empty
    checks_sql: str | None = None  # an item's checks (two ? : the set, the line)
