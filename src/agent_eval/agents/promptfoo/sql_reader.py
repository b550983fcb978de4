"""Reading a promptfoo output with DuckDB's JSON reader: the results whose
fields SQL can take as they are, extracted in one query; the others (and
every file SQL could read differently from Python's decoder) by the Python
reader (agent_eval.agents.promptfoo.reader), result by result or whole.

Python's decoder defines what a result is: the records are those of the
Python reader, row for row (docs/promptfoo-outputs.md, "How the warehouse
reads them"). DuckDB parses the file: a ``.jsonl`` output's lines
(``read_text`` split at line feeds), a ``.json`` output's results array
(``results.results`` unnested) and the few header members. A result is
taken by SQL when its fields are of the types the warehouse scores (an
object, integer promptIdx and testIdx, boolean success, finite score and
cost, assertions that are objects with a finite score and a text value,
a text output) and it is the first of its promptIdx and testIdx: its
record is written in SQL. Any other line or element (not
JSON, not an object, a duplicate, an invalid score...) is decoded by
Python and becomes the reader's record, the rejection and its reason
included.

The whole file is left to the Python reader when DuckDB's reader accepts
text that Python's refuses or reads otherwise: a bare NaN / Infinity token
(any case) or a trailing comma (both accepted by DuckDB), a \\u escape of
a surrogate, an exponent of three digits (infinity to Python), a carriage
return (Python reads it as a line end), a result
without an integer promptIdx (version 2: its columns are numbered as they
appear), a header member given twice, a document that is not an object
with a results object, and any file DuckDB cannot read (not UTF-8,
invalid JSON). Those patterns are looked for in the raw text, strings
included: a match there only costs the faster path.

A test's identity (``reader.test_key``) hashes its vars and asserts as
Python's encoder writes them with sorted keys, which no SQL function
writes: SQL gathers each result's identity as JSON, and Python hashes each
distinct one once (a test's repeats and columns share it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from agent_eval.agents.promptfoo import reader
from agent_eval.ingest.records import Record

# text DuckDB's JSON reader accepts and Python's refuses or reads otherwise
# (a NaN / Infinity token in any case, a trailing comma, a \u escape of a
# surrogate, an exponent of three digits, a carriage return): the whole
# file is the Python reader's
PYTHON_ONLY = r"(?i)[:\[,]\s*[-+]?(nan|inf)|,\s*[}\]]|\\u[d][89a-f]|[:\[,]\s*-?[0-9.]+e[-+]?\d{3}|\r"

# DuckDB's reading holds the file, its results and their records in memory
# at once (several times the file): a larger output is streamed by the Python
# reader, whose memory follows one result
MAX_BYTES = 160 * 2**20

_INTEGER = "('UBIGINT', 'BIGINT')"
_NUMBER = "('UBIGINT', 'BIGINT', 'DOUBLE')"


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _truthy(j: str) -> str:
    """Python's truth of the JSON value ``j`` (SQL NULL: absent)."""
    return (
        f"(coalesce(json_type({j}), 'NULL') <> 'NULL'"
        f" and not (json_type({j}) = 'VARCHAR' and {j} ->> '$' = '')"
        f" and not (json_type({j}) in {_NUMBER} and try_cast({j} ->> '$' as double) = 0)"
        f" and not (json_type({j}) = 'BOOLEAN' and {j} ->> '$' = 'false')"
        f" and not (json_type({j}) = 'ARRAY' and json_array_length({j}) = 0)"
        f" and not (json_type({j}) = 'OBJECT' and json({j}) = '{{}}'))"
    )


def _absent(j: str) -> str:
    return f"coalesce(json_type({j}), 'NULL') = 'NULL'"


def _finite(j: str) -> str:
    """A number Python reads as a finite float or an int."""
    return f"(json_type({j}) in {_NUMBER} and isfinite(try_cast({j} ->> '$' as double)))"


def _object(j: str) -> str:
    return f"coalesce(json_type({j}) = 'OBJECT', false)"


def _obj(members: Iterable[tuple[str, str]]) -> str:
    """A JSON object of JSON values, as text: written by concatenation, as
    ``json_object`` would write it, without parsing each value again."""
    parts = [
        f"'{'{' if i == 0 else ','}\"{key}\":' || coalesce(({value})::varchar, 'null')"
        for i, (key, value) in enumerate(members)
    ]
    return "(" + " || ".join(parts) + " || '}')"


def _array(element: str) -> str:
    """The JSON array of ``element`` (of ``c``) over ``comps``, as text."""
    return f"('[' || array_to_string(list_transform(comps, lambda c: ({element})::varchar), ',') || ']')"


# the members of a result the records read, extracted in one parse each:
# leaves, so that no large member is parsed again
_TOKENS = ("prompt", "completion", "total", "cached")
_PATHS = (
    "promptIdx",
    "testIdx",
    "score",
    "success",
    "cost",
    "failureReason",
    "error",
    "latencyMs",
    "namedScores",
    "vars",
    "provider",
    "provider.label",
    "provider.id",
    "prompt.label",
    "prompt.display",
    "prompt.raw",
    "testCase",
    "testCase.vars",
    "testCase.assert",
    "testCase.description",
    "response.output",
    "response.error",
    "tokenUsage",
    "gradingResult.componentResults",
    *(f"tokenUsage.{k}" for k in _TOKENS),
    *(f"tokenUsage.assertions.{k}" for k in _TOKENS),
    *(f"response.tokenUsage.{k}" for k in _TOKENS),
    *(f"gradingResult.tokensUsed.{k}" for k in _TOKENS),
)
# a component's members (componentResults[i]), in one parse
_COMPONENT = ("assertion.type", "assertion.metric", "assertion.value", "pass", "score", "reason", "assertion")


def _records_sql(source: str) -> str:
    """The query over ``source`` (columns n, text: a result's number and its
    JSON text, or None for a line that is not JSON): n, fast (the record is
    SQL's), first (the first number of its promptIdx and testIdx), the
    record's JSON (fast rows, test key null) and the identity its test key
    hashes."""
    paths = ", ".join(_sql_str(f"$.{p}") for p in _PATHS)
    m = {name: f"m[{i + 1}]" for i, name in enumerate(_PATHS)}
    c = {name: f"c[{i + 1}]" for i, name in enumerate(_COMPONENT)}
    component_paths = ", ".join(_sql_str(f"$.{p}") for p in _COMPONENT)

    def first_truthy(*values: str) -> str:
        """Python's ``a or b or c`` (the last one whatever it is)."""
        whens = " ".join(f"when {_truthy(v)} then {v}" for v in values[:-1])
        return f"case {whens} else {values[-1]} end"

    usage = f"coalesce(json_type({m['tokenUsage']}) = 'OBJECT', false)"
    response_tokens = _obj(
        (k, f"case when {usage} then {m[f'tokenUsage.{k}']} else {m[f'response.tokenUsage.{k}']} end") for k in _TOKENS
    )
    grader_tokens = _obj(
        (k, f"case when {usage} then {m[f'tokenUsage.assertions.{k}']} else {m[f'gradingResult.tokensUsed.{k}']} end")
        for k in _TOKENS
    )
    component_ok = (
        "c is not null"
        f" and ({_absent(c['score'])} or {_finite(c['score'])})"
        f" and coalesce(json_type({c['assertion.value']}), 'NULL') in ('NULL', 'VARCHAR')"
    )
    component = _obj(
        (k, c[path])
        for k, path in (
            ("type", "assertion.type"),
            ("metric", "assertion.metric"),
            ("value", "assertion.value"),
            ("pass", "pass"),
            ("score", "score"),
            ("reason", "reason"),
        )
    )
    test_case_ok = f"({_absent(m['testCase'])} or {_object(m['testCase'])})"
    in_case = f"{_object(m['testCase'])}"
    asserts = (
        f"case when {in_case} and not {_absent(m['testCase.assert'])} then {m['testCase.assert']}"
        " when len(comps) > 0"
        f" then {_array('coalesce(c[7], ' + chr(39) + 'null' + chr(39) + ')')}"
        " end"
    )
    identity_vars = (
        f"case when {in_case} and {m['testCase.vars']} is not null then {m['testCase.vars']} else {m['vars']} end"
    )
    provider = m["provider"]
    prompt_label = " ".join(
        f"when {_truthy(v)} then {v}" for v in (m["prompt.label"], m["prompt.display"], m["prompt.raw"])
    )
    record = _obj(
        [
            # first, as null: the test key replaces it (_LANDED)
            ("test_key", "null"),
            ("column", m["promptIdx"]),
            ("row", m["testIdx"]),
            (
                "provider",
                f"case json_type({provider}) when 'VARCHAR' then {provider}"
                f" when 'OBJECT' then {first_truthy(m['provider.label'], m['provider.id'])} end",
            ),
            ("provider_id", f"case when {_object(provider)} then {m['provider.id']} else {provider} end"),
            ("prompt_label", f"case {prompt_label} end"),
            ("input", m["prompt.raw"]),
            ("description", m["testCase.description"]),
            ("vars", f"case when not {_absent(m['vars'])} then {m['vars']} else {m['testCase.vars']} end"),
            ("success", m["success"]),
            ("score", m["score"]),
            ("failure_reason", m["failureReason"]),
            ("error", m["error"]),
            ("output", m["response.output"]),
            ("response_error", m["response.error"]),
            ("latency_ms", m["latencyMs"]),
            ("cost", m["cost"]),
            ("tokens", response_tokens),
            ("grader_tokens", grader_tokens),
            ("named_scores", m["namedScores"]),
            ("components", _array(component)),
        ]
    )
    return f"""
with

parsed as (
    select n, json_extract(text, [{paths}]) as m
    from {source}
    where text is not null and json_valid(text) and json_type(text) = 'OBJECT'
),

members as (
    select
        n, m,
        -- componentResults: a list (Python reads a missing or null one as none)
        coalesce(json_type({m["gradingResult.componentResults"]}), 'NULL') in ('NULL', 'ARRAY') as comps_ok,
        case when json_type({m["gradingResult.componentResults"]}) = 'ARRAY'
            then list_transform(
                json_extract({m["gradingResult.componentResults"]}, '$[*]'),
                lambda x: case when json_type(x) = 'OBJECT' then json_extract(x, [{component_paths}]) end
            )
            else [] end as comps,
        json_type({m["testIdx"]}) in {_INTEGER} as has_row,
        min(n) over (
            partition by {m["promptIdx"]} ->> '$',
                case when json_type({m["testIdx"]}) in {_INTEGER} then {m["testIdx"]} ->> '$' end
        ) as first_n
    from parsed
),

final as (
    select
        n,
        case when has_row then first_n end as first,
        has_row and first_n = n
        and ({_absent(m["score"])} or {_finite(m["score"])})
        and coalesce(json_type({m["success"]}) = 'BOOLEAN', false)
        and ({_absent(m["cost"])} or {_finite(m["cost"])})
        and comps_ok
        and list_bool_and(list_transform(comps, lambda c: {component_ok})) is not false
        and coalesce(json_type({m["response.output"]}), 'NULL') in ('NULL', 'VARCHAR')
        and {test_case_ok}
        as fast,
        {record} as record,
        {_obj([("vars", identity_vars), ("assert", asserts)])} as identity
    from members
)

select * from final
"""


def _keys(con: duckdb.DuckDBPyConnection) -> None:
    """The test key of each distinct identity (``reader.test_key``'s hash),
    as table ``identity_keys``."""
    identities = [row[0] for row in con.sql("select distinct identity from records where fast").fetchall()]
    keys = []
    for text in identities:
        identity = json.loads(text)
        encoded, _ = reader._finite_json(identity, reader._KEY_JSON)
        keys.append(hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:16])
    con.register("identity_keys", pa.table({"identity": identities, "test_key": keys}))


_LANDED = """
select
    records.n as line_number,
    null::varchar as reject_reason,
    null::varchar as raw_text,
    -- the record's first member is its test key (written null)
    '{"test_key":"' || identity_keys.test_key || '"' || records.record[17:] as record_json
from records
join identity_keys on identity_keys.identity = records.identity
where records.fast
union all
select line_number, reject_reason, raw_text, record_json from python_records
order by line_number
"""


def _python_rows(
    con: duckdb.DuckDBPyConnection, found: list[tuple[int, str | None, int | None]], where: str, header: dict[str, Any]
) -> None:
    """The records of the results SQL does not take, by the Python reader
    (``reader._result_record``), as table ``python_records``; ``found``:
    (number, text, first number of its promptIdx and testIdx)."""
    rows: dict[str, list[Any]] = {"line_number": [], "reject_reason": [], "raw_text": [], "record_json": []}
    for number, text, first in found:
        record = _python_record(number, text, first, where, header)
        if record is None:
            continue
        rows["line_number"].append(record.line_number)
        rows["reject_reason"].append(record.reject_reason)
        rows["raw_text"].append(record.raw_text)
        rows["record_json"].append(
            None if record.values is None else record.values_json or json.dumps(record.values, ensure_ascii=False)
        )
    schema = pa.schema(
        [
            ("line_number", pa.int64()),
            ("reject_reason", pa.string()),
            ("raw_text", pa.string()),
            ("record_json", pa.string()),
        ]
    )
    con.register("python_records", pa.table(rows, schema=schema))


def _python_record(number: int, text: str, first: int | None, where: str, header: dict[str, Any]) -> Record | None:
    at = f"{where} {number}" if where == "line" else f"results[{number - 1}]"
    if where == "line":
        if not text.strip():
            return None
        try:
            result = json.loads(text)
        except ValueError as err:
            return Record(number, None, reader.clipped(text.rstrip("\n")), f"invalid_json: line {number}: {err}")
    else:
        result = json.loads(text)
    seen: dict[tuple[int, int], int] = {}
    if first is not None and first < number and isinstance(result, dict):
        seen[(result.get("promptIdx"), result.get("testIdx"))] = first
    return reader._result_record(number, at, result, seen, header)


def _land(con: duckdb.DuckDBPyConnection, where: str, header: dict[str, Any], last: int) -> pa.Table:
    con.execute(f"create temp table records as {_records_sql('results')}")
    found = con.sql(
        """
        select results.n, results.text, records.first
        from results left join records using (n)
        where records.fast is not true
        order by results.n
        """
    ).fetchall()
    if where == "line":
        # every line but the last ended with a line feed (Python's line keeps it)
        found = [(n, text + "\n" if n < last else text, first) for n, text, first in found]
    _python_rows(con, found, where, header)
    _keys(con)
    return con.sql(_LANDED).arrow().read_all()


def read_jsonl(path: Path) -> tuple[dict[str, Any], pa.Table] | None:
    """A ``.jsonl`` output's header and landed records, or None when the
    file is the Python reader's."""
    with duckdb.connect() as con:
        try:
            con.execute("create temp table file as select content from read_text(?)", [str(path)])
        except duckdb.Error:
            return None  # not UTF-8, unreadable: the Python reader says why
        if con.execute(f"select regexp_matches(content, {_sql_str(PYTHON_ONLY)}) from file").fetchone()[0]:
            return None
        con.execute(
            """
            create temp table results as
            select s.n, s.text
            from (select string_split(content, chr(10)) as lines from file) as t,
                unnest(t.lines) with ordinality as s(text, n)
            """
        )
        con.execute("drop table file")
        if _lacks_column(con):
            return None
        last = con.execute("select max(n) from results").fetchone()[0] or 0
        header: dict[str, Any] = {"format": "jsonl", "version": None, "columns": {}}
        return header, _land(con, "line", header, last)


def _lacks_column(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether some result (a JSON object) has no integer promptIdx."""
    return (
        con.execute(
            f"""
        select count(*) from results
        where text is not null and json_valid(text) and json_type(text) = 'OBJECT'
            and coalesce(json_type(text, '$.promptIdx'), 'NULL') not in {_INTEGER}
        """
        ).fetchone()[0]
        > 0
    )


_TOP = ("evalId", "config", "metadata")
_INNER = ("version", "timestamp", "prompts", "table", "stats")


def read_json(path: Path) -> tuple[dict[str, Any], pa.Table] | None:
    """A ``.json`` output's header and landed records, or None when the
    file is the Python reader's."""
    with duckdb.connect() as con:
        try:
            con.execute("create temp table file as select content from read_text(?)", [str(path)])
            if con.execute(f"select regexp_matches(content, {_sql_str(PYTHON_ONLY)}) from file").fetchone()[0]:
                return None
            con.execute("create temp table doc as select content::json as doc from file")
        except duckdb.Error:
            return None  # not UTF-8, not JSON: the Python reader says why
        con.execute("drop table file")
        top, inner, inner_type = con.execute(
            "select json_keys(doc), json_keys(doc, '$.results'), json_type(doc, '$.results.results') from doc"
        ).fetchone()
        if _doc_type(con) != "OBJECT" or top is None or inner is None:
            return None
        if len(set(top)) < len(top) or len(set(inner)) < len(inner):
            return None
        extracted = con.execute(
            "select "
            + ", ".join(f"json_extract(doc, {_sql_str('$.' + k)})::varchar" for k in _TOP)
            + ", "
            + ", ".join(f"json_extract(doc, {_sql_str('$.results.' + k)})::varchar" for k in _INNER)
            + " from doc"
        ).fetchone()
        values = dict(zip(_TOP + tuple("results." + k for k in _INNER), extracted, strict=True))
        header: dict[str, Any] = {"format": "json", "version": None, "columns": {}}
        # the members in the file's order, as the Python reader meets them
        for key in top:
            if key != "results":
                if key in _TOP and values[key] is not None:
                    reader._top_level(header, key, json.loads(values[key]))
                continue
            for member in inner:
                if member == "results" and inner_type == "ARRAY":
                    reader._check_version(header)
                elif member in _INNER and values["results." + member] is not None:
                    reader._results_member(header, member, json.loads(values["results." + member]))
        if inner_type == "ARRAY":
            con.execute(
                """
                create temp table results as
                select s.n, s.text::varchar as text
                from (select json_extract(doc, '$.results.results[*]') as items from doc) as t,
                    unnest(t.items) with ordinality as s(text, n)
                """
            )
        else:
            con.execute("create temp table results (n bigint, text varchar)")
        con.execute("drop table doc")
        if _lacks_column(con):
            return None
        table = _land(con, "results", header, 0)
        reader._check_version(header)
        reader._column_metrics(header)
        return header, table


def _doc_type(con: duckdb.DuckDBPyConnection) -> str | None:
    return con.execute("select json_type(doc) from doc").fetchone()[0]
