"""Reading a ``-o x.jsonl`` output by DuckDB: the exact reader's records,
at the cost of DuckDB's JSON parser instead of Python's.

The exact reader (``reader._read_jsonl``) parses each line with Python's
``json``, checks it and writes its record as JSON again: more than four
times the cost of parsing the file once. Here DuckDB takes every field a
record needs in one parse of each line, on every core, and joins the
record's JSON from them (``reader._result_record``'s members and
meaning). What DuckDB would read otherwise than Python, it leaves to
Python:

- the whole file goes to the exact reader when it is larger than
  MAX_FILE_BYTES, is not UTF-8, has a carriage return (Python's lines end
  there too) or a line DuckDB cannot parse (a line of blanks included),
  or when a result has no integer ``promptIdx`` and ``testIdx``, two
  results share both (the exact reader names the first in the second's
  rejection) or a result gives one of its own keys twice (its column and
  row would be Python's last);
- a line goes to the exact reader (``exact_lines``) when the exact reader
  rejects it or reads it by Python's rules: a ``success`` that is not true
  or false; a score, cost or assertion score that is not a finite number;
  assertions that are not a list of objects; a provider, prompt name,
  output or assertion value that is not text (names are Python's ``or``
  of several fields; other values are written as JSON by Python); a test
  without asserts of its own (its identity is its assertions'); a token
  DuckDB reads and Python reads otherwise or not at all (NaN, Infinity,
  inf, an exponent of three digits, a trailing comma, deep nesting).

A promptfoo output has none of these. One difference stays, in input
promptfoo cannot write: a key given twice inside a nested object (the
provider, the prompt, the test case, the response, the grading result)
is read as DuckDB reads it, the first, where Python keeps the last; JSON
leaves such a text's meaning open (RFC 8259, section 4).

The identity of a test (``reader.identity_key``, a hash of its vars and
asserts) is Python's, computed once per distinct test. The records land
in line order, as the exact reader's do.
"""

from __future__ import annotations

import array
import json
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from agent_eval.ingest.landing import QueryRecords

# The fields of a result, each by its path: one json_extract reads them
# all in one parse of the line. A path below a value that is not an object
# is NULL, as the exact reader's `x if isinstance(x, dict) else {}`.
FIELDS = {
    "prompt_idx": "$.promptIdx",
    "test_idx": "$.testIdx",
    "provider": "$.provider",
    "provider_label": "$.provider.label",
    "provider_id": "$.provider.id",
    "prompt_label": "$.prompt.label",
    "prompt_display": "$.prompt.display",
    "prompt_raw": "$.prompt.raw",
    "description": "$.testCase.description",
    "case_vars": "$.testCase.vars",
    "case_assert": "$.testCase.assert",
    "vars": "$.vars",
    "success": "$.success",
    "score": "$.score",
    "failure_reason": "$.failureReason",
    "error": "$.error",
    "output": "$.response.output",
    "response_error": "$.response.error",
    "latency": "$.latencyMs",
    "cost": "$.cost",
    "usage": "$.tokenUsage",
    "named_scores": "$.namedScores",
    "components": "$.gradingResult.componentResults",
}
TOKENS = ("prompt", "completion", "total", "cached")
# the token counts: the result's own (tokenUsage) else its response's; the
# graders' (tokenUsage.assertions) else the grading result's (tokensUsed)
TOKEN_SOURCES = {
    "usage": "$.tokenUsage",
    "response_usage": "$.response.tokenUsage",
    "usage_assertions": "$.tokenUsage.assertions",
    "tokens_used": "$.gradingResult.tokensUsed",
}
# a value token Python reads otherwise than DuckDB (or not at all): NaN,
# Infinity and their lowercase forms, an exponent past a double's range,
# a trailing comma. Looked for anywhere (inside a text too): a line it
# finds in error is only read by the exact reader. Three patterns, each
# starting with the character before the value: RE2 finds them faster so
# than one pattern starting with a class of them.
PYTHON_ONLY_VALUE = r"[ \t]*[-+]?([nNiI][aAnN][nNfF]|[0-9][0-9.]*[eE]\+?[0-9][0-9][0-9])"
PYTHON_ONLY_TOKENS = (
    f":{PYTHON_ONLY_VALUE}",
    rf",({PYTHON_ONLY_VALUE}|[ \t]*[\]}}])",
    rf"\[{PYTHON_ONLY_VALUE}",
)
# Python's decoder stops at about a thousand levels of nesting; a line with
# this many brackets may reach them
NESTING_BRACKETS = 500

MEMBERS = [*FIELDS, *(f"{source}_{token}" for source in TOKEN_SOURCES for token in TOKENS)]
PATHS = [*FIELDS.values(), *(f"{path}.{token}" for path in TOKEN_SOURCES.values() for token in TOKENS)]

COMPONENTS = '[{"pass": "JSON", "score": "JSON", "reason": "JSON", "assertion": {"type": "JSON", "metric": "JSON", "value": "JSON"}}]'


def _sql_list(items: list[str] | tuple[str, ...]) -> str:
    return "[" + ", ".join("'" + item.replace("'", "''") + "'" for item in items) + "]"


# DuckDB's reading holds the file in memory (with what it makes of it,
# about four times its size); a larger file is read by the exact reader,
# whose memory follows a line
MAX_FILE_BYTES = 256 * 2**20
# the lines of a file in batches of this many: DuckDB reads the batches of
# an Arrow table on every core (a table of its own would be one row group,
# one core)
BATCH_LINES = 4096


def file_lines(path: Path) -> pa.Table | None:
    """The file's lines (each with its newline) and their numbers, without
    copying the text; None when it is not UTF-8 or has a carriage return
    (Python's lines end there too)."""
    data = path.read_bytes()
    if b"\r" in data:
        return None
    offsets = array.array("q", [0])  # where each line starts, then the end
    find, at = data.find, data.find(b"\n")
    while at >= 0:
        offsets.append(at + 1)
        at = find(b"\n", at + 1)
    if offsets[-1] != len(data):
        offsets.append(len(data))  # a last line without its newline
    n_lines = len(offsets) - 1
    binary = pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), n_lines, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    try:
        text = binary.cast(pa.large_utf8())
    except pa.ArrowInvalid:
        return None
    lines = pa.table({"line": text, "line_number": pa.array(range(1, n_lines + 1), pa.int64())})
    return pa.Table.from_batches(lines.to_batches(max_chunksize=BATCH_LINES))


MACROS_SQL = """
create temp macro pf_number_or_null(j) as (
    case
        when j is null or json_type(j) = 'NULL' then true
        when json_type(j) in ('BIGINT', 'UBIGINT', 'DOUBLE') then coalesce(isfinite(try_cast(j as double)), false)
        else false
    end
);
create temp macro pf_text_or_null(j) as (j is null or json_type(j) in ('VARCHAR', 'NULL'));
create temp macro pf_unique(keys) as (keys is null or len(keys) = list_unique(keys));
create temp macro pf_j(j) as (coalesce(j::varchar, 'null'));
create temp macro pf_nonempty(j) as (case when j <> '""' and j <> 'null' then j end);
"""


def members(pairs: list[tuple[str, str]], opening: str = "", closing: str = "") -> str:
    """The SQL of JSON object members ``"name":value`` joined by commas,
    from SQL expressions of JSON values (NULL: null), in one concat (a
    chain of || would copy the text once per member)."""
    parts = []
    for index, (name, expr) in enumerate(pairs):
        comma = "" if index == 0 and opening else ","
        parts += [f"'{opening if index == 0 else ''}{comma}\"{name}\":'", f"pf_j({expr})"]
    if closing:
        parts.append(f"'{closing}'")
    return "concat(" + ", ".join(parts) + ")"


def tokens(source: str) -> str:
    """A token-count object from its four members' columns."""
    return members([(token, f"{source}_{token}") for token in TOKENS], opening="{", closing="}")


COMPONENT = members(
    [
        ("type", "c.assertion.type"),
        ("metric", "c.assertion.metric"),
        ("value", "c.assertion.value"),
        ("pass", "c.pass"),
        ("score", "c.score"),
        ("reason", "c.reason"),
    ],
    opening="{",
    closing="}",
)
# the record's members (reader._result_record): before its test_key, after it
RECORD_HEAD = [
    ("column", "prompt_idx"),
    ("row", "test_idx"),
    (
        "provider",
        "case provider_type when 'VARCHAR' then provider"
        " when 'OBJECT' then coalesce(pf_nonempty(provider_label), provider_id) end",
    ),
    ("provider_id", "case when provider_type = 'OBJECT' then provider_id else provider end"),
    ("prompt_label", "coalesce(pf_nonempty(prompt_label), pf_nonempty(prompt_display), pf_nonempty(prompt_raw))"),
    ("input", "prompt_raw"),
]
RECORD_TAIL = [
    ("description", "description"),
    ("vars", "case when vars is not null and vars <> 'null' then vars else case_vars end"),
    ("success", "success"),
    ("score", "score"),
    ("failure_reason", "failure_reason"),
    ("error", "error"),
    ("output", "output"),
    ("response_error", "response_error"),
    ("latency_ms", "latency"),
    ("cost", "cost"),
    ("tokens", f"case when usage_type = 'OBJECT' then {tokens('usage')} else {tokens('response_usage')} end"),
    (
        "grader_tokens",
        f"case when usage_type = 'OBJECT' then {tokens('usage_assertions')} else {tokens('tokens_used')} end",
    ),
    ("named_scores", "named_scores"),
    (
        "components",
        f"concat('[', array_to_string(coalesce(list_transform(component_list, lambda c: {COMPONENT}), []), ','), ']')",
    ),
]
RECORD_HEAD_SQL = members(RECORD_HEAD, opening="{")
RECORD_TAIL_SQL = members(RECORD_TAIL, closing="}")


FIELDS_SQL = f"""
create temp table fields as
with parsed as (
    select
        line_number,
        line,
        json_extract(line, {_sql_list(PATHS)}) as m,
        json_keys(line) as top_keys
    from lines
    where line <> '\n' and line <> ''
),

named as (
    select
        line_number,
        line,
        top_keys,
        {", ".join(f"m[{i}] as {name}" for i, name in enumerate(MEMBERS, start=1))}
    from parsed
),

typed as (
    select
        *,
        json_type(provider) as provider_type,
        json_type(usage) as usage_type,
        json_type(components) as components_type,
        case
            when components_type = 'ARRAY' then from_json(components, '{COMPONENTS}')
        end as component_list
    from named
)

select
    line_number,
    prompt_idx,
    test_idx,
    json_type(prompt_idx) as prompt_idx_type,
    json_type(test_idx) as test_idx_type,
    top_keys,
    not coalesce(
        json_type(success) = 'BOOLEAN'
        and pf_number_or_null(score)
        and pf_number_or_null(cost)
        and (provider_type is null or provider_type in ('VARCHAR', 'OBJECT', 'NULL'))
        and pf_text_or_null(provider_label)
        and pf_text_or_null(provider_id)
        and pf_text_or_null(prompt_label)
        and pf_text_or_null(prompt_display)
        and pf_text_or_null(prompt_raw)
        and pf_text_or_null(output)
        and (components_type is null or components_type in ('ARRAY', 'NULL'))
        and (
            component_list is null
            or (
                list_bool_and(list_transform(json_type(components, '$[*]'), lambda t: t = 'OBJECT'))
                and list_bool_and(list_transform(component_list, lambda c: pf_number_or_null(c.score)))
                and list_bool_and(list_transform(component_list, lambda c: pf_text_or_null(c.assertion.value)))
            )
        )
        and (case_assert is not null and case_assert <> 'null' or coalesce(len(component_list), 0) = 0)
        and not ({" or ".join(f"regexp_matches(line, '{pattern}')" for pattern in PYTHON_ONLY_TOKENS)})
        and (
            length(line) < {2 * NESTING_BRACKETS}
            or length(line) - length(replace(replace(line, '[', ''), '{{', '')) < {NESTING_BRACKETS}
        ),
        false
    ) as exact,
    -- the identity's vars: the test case's own (its key, even null), else the result's
    case when case_vars is not null then case_vars else vars end as identity_vars,
    case_assert as identity_assert,
    -- the record as the exact reader writes it, in two parts around its
    -- test_key (Python's, joined later)
    {RECORD_HEAD_SQL} || ',"test_key":' as record_head,
    {RECORD_TAIL_SQL} as record_tail
from typed
"""

# the whole file to the exact reader: a result without
# an integer column and row, two results with the same, or a key given
# twice at the top of a result (the column and row are Python's last)
WHOLE_FILE_SQL = """
select
    coalesce(bool_or(
        prompt_idx_type is null or prompt_idx_type not in ('BIGINT', 'UBIGINT')
        or test_idx_type is null or test_idx_type not in ('BIGINT', 'UBIGINT')
    ), false)
    or count(*) <> count(distinct (prompt_idx::varchar, test_idx::varchar))
    -- each distinct list of top-level keys checked once (the lines of an
    -- output share a few): a check per line costs more than its parse
    or coalesce((select bool_or(not pf_unique(keys)) from (select distinct top_keys as keys from fields)), false)
from fields
"""

RECORDS_SQL = """
select
    fields.line_number::bigint as line_number,
    null::varchar as reject_reason,
    null::varchar as raw_text,
    fields.record_head || to_json(keys.test_key)::varchar || fields.record_tail as record_json
from fields
inner join keys
    on coalesce(fields.identity_vars, 'null') = keys.identity_vars
    and coalesce(fields.identity_assert, 'null') = keys.identity_assert
where not fields.exact
union all
select line_number, reject_reason, raw_text, record_json from exact_records
order by line_number
"""


def read_by_duckdb(path: Path, exact_lines: Any, key_of: Any) -> QueryRecords | None:
    """The output's records in landed form (``landing.records_schema``),
    left in DuckDB for the landing to write, or None when the file is one
    for the exact reader whole.
    ``exact_lines(lines)`` is the exact reader's records of the given
    (number, text) lines, in landed form;
    ``key_of(vars, asserts)`` a test's identity."""
    if path.stat().st_size > MAX_FILE_BYTES:
        return None
    lines = file_lines(path)
    if lines is None:
        return None
    con = duckdb.connect()
    try:
        con.register("lines", lines)
        try:
            con.execute(MACROS_SQL)
            con.execute(FIELDS_SQL)
            ((whole_file,),) = con.execute(WHOLE_FILE_SQL).fetchall()
        except duckdb.Error:
            whole_file = True  # a line DuckDB cannot read as JSON
        if whole_file:
            con.close()
            return None
        identities = con.execute(
            "select distinct coalesce(identity_vars, 'null'), coalesce(identity_assert, 'null') "
            "from fields where not exact"
        ).fetchall()
        keys = pa.table(
            {
                "identity_vars": [v for v, _ in identities],
                "identity_assert": [a for _, a in identities],
                "test_key": [key_of(json.loads(v), json.loads(a)) for v, a in identities],
            }
        )
        exact = con.execute(
            "select line_number, line from lines join fields using (line_number) where exact order by line_number"
        ).fetchall()
        exact_records = exact_lines(exact)
        con.register("keys", keys)
        con.register("exact_records", exact_records)
        ((n_read,),) = con.execute("select count(*) from fields where not exact").fetchall()
        return QueryRecords(con, RECORDS_SQL, n_read + exact_records.num_rows)
    except BaseException:
        con.close()
        raise
