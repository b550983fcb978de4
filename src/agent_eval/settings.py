"""Every ``AGENT_EVAL_*`` environment variable: read and validated here,
and only here.

Each variable is one ``Setting``: its meaning, its default and the rule
its value must follow. ``value(name)`` reads one (an empty value is the
same as unset: the default, returned as None); ``check()`` validates all
of them, which `agent-eval` does before any command runs, so a wrong value
stops it at once in one line naming the variable instead of deep inside a
build. docs/operations.md's table of the variables is this module's
``SETTINGS`` (tests/test_settings.py compares them).

dbt reads three of them itself, in profiles.yml: ``AGENT_EVAL_DB`` (which
`agent-eval` sets for dbt to the warehouse it builds),
``AGENT_EVAL_DUCKDB_MEMORY`` and ``AGENT_EVAL_DBT_THREADS``. The Python
loader models run inside dbt and read theirs through this module too (the
drops folder, the record limit, the build's date).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

PREFIX = "AGENT_EVAL_"


class SettingError(ValueError):
    """A variable's value breaks its rule; the message is one line naming it."""


def _path(text: str) -> Path:
    if "\0" in text:
        raise ValueError("is not a path (it holds a NUL character)")
    return Path(text).expanduser()


def _text(text: str) -> str:
    return text


def _number(low: float, unit: str = "") -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"is not a number{unit}") from None
        if not number >= low:  # NaN fails too
            raise ValueError(f"must be at least {low:g}")
        return number

    return parse


def _whole(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise ValueError("is not a whole number") from None
        if number < low:
            raise ValueError(f"must be at least {low}")
        return number

    return parse


def _record_mb(text: str) -> float:
    try:
        mb = float(text)
    except ValueError:
        raise ValueError("is not a number of MB") from None
    if not mb > 0:
        raise ValueError("must be a positive number of MB")
    return mb


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError("is not a date (YYYY-MM-DD)") from None


# what DuckDB's memory_limit accepts: a number and a unit
MEMORY = re.compile(r"\d+(\.\d+)?\s*(b|bytes|kb|mb|gb|tb|kib|mib|gib|tib)", re.IGNORECASE)


def _memory(text: str) -> str:
    if not MEMORY.fullmatch(text):
        raise ValueError("is not a memory size (a number and a unit: 512MB, 1GB, 2GiB)")
    return text


def _token(text: str) -> str:
    if text != text.strip():
        raise ValueError("has blanks around it (or is only blanks): set it to the secret alone")
    return text


@dataclass(frozen=True)
class Setting:
    """One variable: ``meaning``, ``default`` and ``rule`` as the docs say
    them; ``parse`` turns its text into the value (ValueError: the reason,
    said after the variable's name); a ``secret``'s value is never shown."""

    name: str
    meaning: str
    default: str
    rule: str
    parse: Callable[[str], Any]
    secret: bool = False
    # False: blanks around the value are part of it (for the parser to refuse)
    strip: bool = True


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "AGENT_EVAL_PROJECT",
        "the dbt project (`--project-dir` sets it for the command)",
        "found from the working directory",
        "a path",
        _path,
    ),
    Setting(
        "AGENT_EVAL_DB",
        "the working warehouse file (`--db`)",
        "`warehouse/agent_eval.duckdb`",
        "a path, relative to the project",
        _path,
    ),
    Setting(
        "AGENT_EVAL_DROPS",
        "the drops folder (`--drops`), as the CLI and the loader models inside dbt read it",
        "`data/drops`",
        "a path, relative to the project",
        _path,
    ),
    Setting(
        "AGENT_EVAL_REPORTS", "the reports folder (`--reports`)", "`reports/`", "a path, relative to the project", _path
    ),
    Setting(
        "AGENT_EVAL_PUBLISHED",
        "the published copy, what readers open (`--published`)",
        "`published/` beside the warehouse file",
        "a path, relative to the project",
        _path,
    ),
    Setting(
        "AGENT_EVAL_DUCKDB_MEMORY",
        "DuckDB's memory limit in a build (read by profiles.yml); beyond it, DuckDB spills to `<warehouse>.tmp/`",
        "`1GB`",
        "a number and a unit (`512MB`, `2GB`, `2GiB`)",
        _memory,
    ),
    Setting(
        "AGENT_EVAL_DBT_THREADS",
        "dbt's threads in a build (read by profiles.yml): how many nodes run at once",
        "`2`",
        "a whole number, at least 1",
        _whole(1),
    ),
    Setting(
        "AGENT_EVAL_MAX_RECORD_MB",
        "the largest data record loaded, in MB (a CSV record, a JSONL line, a dataset's test case); a larger "
        "one is a rejected row, `record_too_large`; a CSV header larger than it rejects its file (`header too large`)",
        "`8`",
        "a number above 0",
        _record_mb,
    ),
    Setting(
        "AGENT_EVAL_AS_OF",
        "the build's date, for replaying an old night: drop folders after it are not read, freshness gates "
        "measure ages on it (as dbt var `freshness_as_of`)",
        "today (UTC)",
        "a date, YYYY-MM-DD",
        _date,
    ),
    Setting(
        "AGENT_EVAL_SERVE_TOKEN",
        "the viewer's token (`serve`); required, of at least 16 characters, to bind beyond loopback",
        "none",
        "no blanks around it",
        _token,
        secret=True,
        strip=False,
    ),
    Setting(
        "AGENT_EVAL_OUTPUTS",
        "`evaluate`'s folder of run folders (`--outputs-dir`)",
        "`agent/outputs` under the nearest folder upwards that has one",
        "a path, relative to the working directory",
        _path,
    ),
    Setting(
        "AGENT_EVAL_RESULTS",
        "`evaluate`'s folder of result files (`--results-dir`)",
        "`shared/evaluation/results` beside that `agent/` folder",
        "a path, relative to the working directory",
        _path,
    ),
    Setting(
        "AGENT_EVAL_CACHE",
        "`evaluate`'s cache of dbt plans",
        "`$XDG_CACHE_HOME/agent-eval/evaluate`, else `~/.cache/agent-eval/evaluate`",
        "a path, relative to the working directory",
        _path,
    ),
    Setting(
        "AGENT_EVAL_JUDGE_BASE_URL",
        "the judge's endpoint base URL (`…/v1`; `/chat/completions` is appended)",
        "unset: judge off",
        "any text",
        _text,
    ),
    Setting("AGENT_EVAL_JUDGE_MODEL", "the judge's model", "required when the URL is set", "any text", _text),
    Setting(
        "AGENT_EVAL_JUDGE_API_KEY",
        "the judge's API key (sent as `Bearer`)",
        "none",
        "any text",
        _text,
        secret=True,
        strip=False,
    ),
    Setting(
        "AGENT_EVAL_JUDGE_TIMEOUT_SEC",
        "the judge's timeout per request, seconds",
        "30",
        "a number, at least 0.001",
        _number(0.001),
    ),
    Setting(
        "AGENT_EVAL_JUDGE_MAX_ATTEMPTS",
        "the judge's attempts per item (the first and its retries)",
        "4",
        "a whole number, at least 1",
        _whole(1),
    ),
    Setting(
        "AGENT_EVAL_JUDGE_CONCURRENCY",
        "items the judge sends at the same time",
        "4",
        "a whole number, at least 1",
        _whole(1),
    ),
    Setting(
        "AGENT_EVAL_JUDGE_MAX_ITEMS",
        "most items one judge run may send (a cost bound; `--limit` wins)",
        "no bound",
        "a whole number, at least 0",
        _whole(0),
    ),
    Setting(
        "AGENT_EVAL_JUDGE_BACKOFF_SEC",
        "the judge's first backoff, seconds (doubled per retry, up to 25% jitter)",
        "1",
        "a number, at least 0",
        _number(0.0),
    ),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}


def value(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """The validated value of variable ``name`` (from ``environ``, default
    the process's environment), or None when it is unset or empty."""
    setting = BY_NAME[name]
    text = (os.environ if environ is None else environ).get(name)
    if text is not None and setting.strip:
        text = text.strip()
    if not text:
        return None
    try:
        return setting.parse(text)
    except ValueError as err:
        shown = name if setting.secret else f"{name}={text!r}"
        raise SettingError(f"{shown} {err}") from None


def check(environ: Mapping[str, str] | None = None) -> None:
    """Every variable validated; SettingError names the first wrong one."""
    for setting in SETTINGS:
        value(setting.name, environ)


@contextlib.contextmanager
def project_in_use(project_dir: Path | None) -> Iterator[None]:
    """$AGENT_EVAL_PROJECT set to ``project_dir`` (when given) for the
    block: the agent registry read in this process and dbt's loader models
    then see the same project."""
    if project_dir is None:
        yield
        return
    saved = os.environ.get("AGENT_EVAL_PROJECT")
    os.environ["AGENT_EVAL_PROJECT"] = str(project_dir)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("AGENT_EVAL_PROJECT", None)
        else:
            os.environ["AGENT_EVAL_PROJECT"] = saved


def markdown_table() -> str:
    """The variables as docs/operations.md shows them (one row each)."""
    lines = ["| variable | meaning | default | valid values |", "| --- | --- | --- | --- |"]
    lines += [f"| `{s.name}` | {s.meaning} | {s.default} | {s.rule} |" for s in SETTINGS]
    return "\n".join(lines)
