"""The page of a set of an imported evaluation tool (marts.eval_*: an
Inspect AI log, a promptfoo output's column, ...) in the web viewer: the
run (status, tokens), each scorer's metrics beside what the tool reported,
the items (sample, epoch, scorer) filtered by scorer, pass, error and a
text search, paged in SQL, and one sample and epoch with every scorer's
verdict (``sample`` and ``epoch`` in the query). Each importing agent's
viewer module uses it as its own."""

from __future__ import annotations

from typing import Any

from agent_eval.db import Cursor, one, rows
from agent_eval.viewer.parts import MAX_QUERY_CHARS, PER_PAGE, BadRequest, NotFound, parse_choice, parse_int

TEMPLATE = "set_eval.html"
SCORES_SQL = "select * from marts.eval_set_scores where set_id = ? order by scorer, metric"
# one sample and epoch, every scorer's verdict (three ?: the set, the sample, the epoch)
SAMPLE_SQL = (
    "select sample_id, epoch, scorer, input, target, answer, completion, value_raw, value, is_pass, "
    "explanation, error, latency_sec, input_tokens, output_tokens, line_number from marts.eval_item_scores "
    "where set_id = ? and sample_id = ? and epoch = ? order by scorer"
)


def item_filter(cur: Cursor, set_id: str, args: Any) -> dict[str, Any]:
    """The item table's filters of a request (scorer, result, error, q,
    per_page), checked: the SQL condition (values as parameters) the page
    and its downloads both use, its parameters, the set's scorers."""
    scorers = [
        r["scorer"]
        for r in rows(cur, "select distinct scorer from marts.eval_item_scores where set_id = ? order by 1", [set_id])
    ]
    scorer = parse_choice(args.get("scorer"), "scorer", scorers)
    result = parse_choice(args.get("result"), "result", ("pass", "fail"))
    errors = parse_choice(args.get("error"), "error", ("yes", "no"))
    per_page = parse_int(args.get("per_page"), "per_page", 50)
    if per_page not in PER_PAGE:
        raise BadRequest(f"per_page must be one of {', '.join(map(str, PER_PAGE))}")
    text = (args.get("q") or "").strip()
    if len(text) > MAX_QUERY_CHARS:
        raise BadRequest(f"q must be at most {MAX_QUERY_CHARS} characters")
    where, params = ["set_id = ?"], [set_id]
    if scorer is not None:
        where.append("scorer = ?")
        params.append(scorer)
    if result is not None:
        where.append("is_pass" if result == "pass" else "not is_pass")
    if errors is not None:
        where.append("error is not null" if errors == "yes" else "error is null")
    if text:
        where.append("(contains(input, ?) or contains(answer, ?) or contains(sample_id, ?))")
        params += [text, text, text]
    return {
        "condition": " and ".join(where),
        "params": params,
        "scorers": scorers,
        "filters": {"scorer": scorer, "result": result, "error": errors, "q": text, "per_page": per_page},
    }


def items_sql(condition: str) -> str:
    """The item table's rows matching ``condition``, in its order."""
    return (
        "select sample_id, epoch, scorer, input, target, answer, value_raw, value, is_pass, explanation, error, "
        f"latency_sec from marts.eval_item_scores where {condition} order by sample_id, epoch, scorer"
    )


def set_page(cur: Cursor, set_id: str, args: dict[str, str]) -> dict[str, Any]:
    run = one(cur, "select * from marts.eval_runs where set_id = ?", [set_id])
    if run is None:
        raise NotFound(f"no imported run in set {set_id!r}")
    scores = rows(cur, SCORES_SQL, [set_id])
    chosen = item_filter(cur, set_id, args)
    scorers, condition, params = chosen["scorers"], chosen["condition"], chosen["params"]
    per_page = chosen["filters"]["per_page"]
    page = parse_int(args.get("page"), "page", 1, 1, 10_000_000)
    item = None
    if args.get("sample"):
        epoch = parse_int(args.get("epoch"), "epoch", 1, 1, 1_000_000)
        scores_of_item = rows(
            cur,
            SAMPLE_SQL,
            [set_id, args["sample"], epoch],
        )
        if not scores_of_item:
            raise NotFound(f"no sample {args['sample']!r} epoch {epoch} in set {set_id!r}")
        item = {"first": scores_of_item[0], "scores": scores_of_item}
    total = one(cur, f"select count(*) as n from marts.eval_item_scores where {condition}", params)["n"]
    items = rows(cur, f"{items_sql(condition)} limit ? offset ?", [*params, per_page, (page - 1) * per_page])
    return {
        "run": run,
        "scores": scores,
        "items": items,
        "scorers": scorers,
        "filters": chosen["filters"],
        "page_no": page,
        "n_items": total,
        "n_pages": max(1, -(-total // per_page)),
        "item": item,
    }
