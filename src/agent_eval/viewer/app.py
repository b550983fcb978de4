"""The web viewer (`agent-eval serve`): Flask pages over the published file.

Pages (all read the published DuckDB file through `Snapshots`, read-only):

    /                 overview of the newest drop (or ?date=): a card per set,
                      a card per delivery rejected whole, and per agent what
                      was rejected, withdrawn or did not arrive
    /series?id=       trends per metric with interval band, rolling mean, baseline
    /set?id=          a set: metric cards and gates, then its agent's page
                      (the agent package's viewer part: an item table with
                      distributions, the 004 8.3 summary page, expected vs
                      actual of an engagement run; none: cards and gates only)
    /item?set=&line=  one item of an agent with an item table: question,
                      expected, answer, Raw JSON, checks, other rounds
    /compare?sets=A&sets=B[&sets=C...]
                      any sets of one agent against the first (A): the grid
                      of paired differences, p-values and Holm's adjustment,
                      the items changed first (agent_eval.compare);
                      ?set=X: X against its baseline; /compare/item one
                      item of two sets, the answers side by side, word diff
    /download/<table>.<csv|parquet>?...
                      a table of a page, the page's filters applied, every
                      row (agent_eval.viewer.downloads); /compare.csv the
                      comparison's two tables (table=metrics or items)
    /<agent>          an agent's index page, if its viewer part has one
                      (/engagement: every engagement run)

Security: agent text is escaped by Jinja's autoescape (templates are .html);
chart data goes into `<script type="application/json">` through `tojson`,
which escapes `<`, `>` and `&`; the Content-Security-Policy allows scripts
from this app only. With a token (required when binding beyond loopback,
see cli.cmd_serve) every request, static files included, must carry it.
"""

from __future__ import annotations

import hmac
import logging
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

from flask import Flask, Response, g, redirect, render_template, request, url_for
from jinja2 import ChoiceLoader, FileSystemLoader, PrefixLoader
from werkzeug.exceptions import HTTPException

from agent_eval import registry
from agent_eval.fonts import web_font_bytes
from agent_eval.viewer import downloads, pages
from agent_eval.viewer.snapshots import NotPublished, Snapshots

TOKEN_COOKIE = "agent_eval_token"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)

log = logging.getLogger("agent_eval.viewer")


def has_item_pages(name: str) -> bool:
    """Whether agent ``name`` has item pages (/item): its viewer part
    declares an item table. The compare links an item's line there only
    then; the item of two sets side by side (/compare/item) serves every
    agent with items."""
    return pages.item_table_of(name) is not None


def agent_templates() -> PrefixLoader:
    """The agents' own page templates (the ``templates`` folder of each
    registered agent's package), as ``<agent>/<file>``: the shared folder
    (viewer/templates) holds the shared ones only."""
    folders = {agent.name: Path(agent.module.__file__).parent / "templates" for agent in registry.registered()}
    return PrefixLoader({name: FileSystemLoader(folder) for name, folder in folders.items() if folder.is_dir()})


def template_of(name: str, template: str) -> str:
    """The name the viewer renders ``template`` of agent ``name``'s viewer
    part by: its own (``<agent>/<file>``) when its package has one, else
    the shared template of that name (an imported tool's set page)."""
    agent = registry.by_name().get(name)
    if agent is not None and (Path(agent.module.__file__).parent / "templates" / template).is_file():
        return f"{name}/{template}"
    return template


def create_app(published_db: Path, token: str | None = None) -> Flask:
    """The viewer app over ``published_db`` (which need not exist yet: until the
    first publish, pages answer 503 with what to run)."""
    app = Flask(__name__)
    app.config.update(JSON_AS_ASCII=False, TEMPLATES_AUTO_RELOAD=False)
    app.jinja_loader = ChoiceLoader([app.jinja_loader, agent_templates()])
    # the agents' pages in the navigation bar (the viewer parts with an index page)
    parts = {agent.name: pages.viewer_part(agent.name) for agent in registry.registered()}
    indexes = [{"name": name, "title": part.INDEX_TITLE} for name, part in parts.items() if hasattr(part, "index_page")]
    app.jinja_env.globals.update(agent_labels=registry.labels(), agent_indexes=indexes)
    app.jinja_env.filters.update(num=fmt_number, pct=fmt_percent, iso=fmt_date)
    snapshots = Snapshots(Path(published_db))
    app.extensions["agent_eval_snapshots"] = snapshots

    def labels(kind: str) -> dict[str, dict[str, Any]]:
        """The display labels of verdicts or reason codes (their seeds),
        read once per request, when a page first shows one."""
        cache = g.setdefault("labels", {})
        if kind not in cache:
            cache[kind] = pages.verdict_labels(cursor()) if kind == "verdict" else pages.reason_labels(cursor())
        return cache[kind]

    app.jinja_env.globals.update(
        verdict_label=lambda verdict: labels("verdict").get(verdict),
        reason_label=lambda reason: labels("reason").get(reason),
    )

    @app.before_request
    def check_token() -> Response | None:
        if token is None:
            return None
        # the scheme's name in any case (RFC 7235: case-insensitive)
        scheme, _, credentials = request.headers.get("Authorization", "").strip().partition(" ")
        offered = (
            (credentials.strip() if scheme.lower() == "bearer" else "")
            or request.args.get("token")
            or request.cookies.get(TOKEN_COOKIE)
            or ""
        )
        if not hmac.compare_digest(offered.encode(), token.encode()):
            return Response(
                "401: this viewer needs its token (AGENT_EVAL_SERVE_TOKEN): open the URL "
                "`agent-eval serve` printed, or send `Authorization: Bearer <token>`.\n",
                status=401,
                mimetype="text/plain",
            )
        if request.args.get("token"):
            g.set_token_cookie = True
        return None

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        if g.get("set_token_cookie"):
            response.set_cookie(TOKEN_COOKIE, token or "", httponly=True, samesite="Strict")
        return response

    @app.teardown_request
    def release(_exc: BaseException | None) -> None:
        cur = g.pop("cursor", None)
        if cur is not None:
            cur.close()
        snapshot = g.pop("snapshot", None)
        if snapshot is not None:
            snapshots.release(snapshot)

    def cursor() -> Any:
        if "cursor" not in g:
            g.snapshot = snapshots.acquire()
            g.cursor = g.snapshot.cursor()
        return g.cursor

    @app.errorhandler(pages.BadRequest)
    def bad_request(err: pages.BadRequest) -> tuple[str, int]:
        return render_template("error.html", code=400, title="잘못된 요청 (400)", message=str(err)), 400

    @app.errorhandler(pages.NotFound)
    def not_found(err: pages.NotFound) -> tuple[str, int]:
        return render_template("error.html", code=404, title="없음 (404)", message=str(err)), 404

    @app.errorhandler(NotPublished)
    def not_published(err: NotPublished) -> tuple[str, int]:
        return render_template("error.html", code=503, title="아직 게시된 파일이 없습니다 (503)", message=str(err)), 503

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> tuple[str, int]:
        return render_template(
            "error.html", code=err.code, title=f"{err.name} ({err.code})", message=err.description
        ), err.code or 500

    @app.errorhandler(Exception)
    def internal_error(err: Exception) -> tuple[str, int]:
        # the traceback goes to the server's log, never to the page
        log.exception("viewer: %s %s failed", request.method, request.full_path)
        print(f"viewer: {request.method} {request.full_path} failed: {type(err).__name__}: {err}", file=sys.stderr)
        return render_template(
            "error.html",
            code=500,
            title="내부 오류 (500)",
            message="The page failed; the server's log has the details.",
        ), 500

    @app.get("/")
    def overview() -> str:
        day = pages.parse_date(request.args.get("date"), "date")
        return render_template("overview.html", page="overview", **pages.overview(cursor(), day))

    @app.get("/series")
    def series() -> str:
        args = request.args
        data = pages.series(
            cursor(), args.get("id"), pages.parse_date(args.get("from"), "from"), pages.parse_date(args.get("to"), "to")
        )
        return render_template("series.html", page="series", **data)

    @app.get("/series/all")
    def series_index() -> str:
        return render_template("series_index.html", page="series", series=pages.series_list(cursor()))

    @app.get("/set")
    def set_page() -> str:
        cur = cursor()
        found = pages.find_set(cur, request.args.get("id"))
        agent = found["agent"]
        context: dict[str, Any] = {
            "set": found,
            "metrics": pages.set_metrics(cur, found["set_id"]),
            "gates": pages.set_gates(cur, found["set_id"]),
            "page": "set",
        }
        # "compare with…": any set of the same agent, the baseline preselected
        # (sets without items compare by their metrics alone)
        context["compare_choices"] = [
            c for c in pages.compare_choices(cur, agent, found["set_id"]) if c["set_id"] != found["set_id"]
        ]
        context["compare_default"] = pages.baseline_of(cur, found["set_id"])
        part = pages.viewer_part(agent)
        spec = getattr(part, "ITEM_TABLE", None)
        if spec is not None:
            context.update(
                spec=spec,
                table=pages.item_table(cur, spec, found["set_id"], request.args.to_dict()),
                dist=pages.distributions(cur, spec, found["set_id"]),
            )
            return render_template("set_items.html", **context)
        if part is not None and hasattr(part, "set_page"):
            context.update(part.set_page(cur, found["set_id"], request.args.to_dict()))
            return render_template(template_of(agent, part.TEMPLATE), **context)
        # an agent without a page of its own: its metrics and gates
        return render_template("set_basic.html", **context)

    @app.get("/item")
    def item_page() -> str:
        cur = cursor()
        found, spec, line = pages.item_request(cur, request.args)
        return render_template("item.html", set=found, page="set", **pages.item(cur, spec, found["set_id"], line))

    @app.get("/compare")
    def compare() -> str:
        cur = cursor()
        sets = pages.compare_sets(request.args)
        if request.args.get("set"):
            # "vs baseline": this page with the set's baseline as the reference
            found = pages.find_set(cur, request.args.get("set"))
            baseline = pages.baseline_of(cur, found["set_id"])
            if baseline is None:
                return render_template(
                    "compare.html",
                    page="compare",
                    set=found,
                    sets=[found["set_id"]],
                    choices=pages.compare_choices(cur, found["agent"], found["set_id"]),
                )
            sets = [baseline, found["set_id"]]
        if len(sets) < 2:
            raise pages.BadRequest("compare needs at least two sets: /compare?sets=A&sets=B (A is the reference)")
        first = pages.find_set(cur, sets[0])
        data = pages.compare(cur, sets, request.args.get("versus"), request.args.get("sort"), request.args.get("dir"))
        return render_template(
            "compare.html",
            page="compare",
            set=first,
            sets=sets,
            choices=pages.compare_choices(cur, first["agent"], first["set_id"]),
            item_pages=has_item_pages(first["agent"]),
            **data,
        )

    @app.get("/compare/item")
    def compare_item() -> str:
        cur = cursor()
        sets = pages.compare_sets(request.args)
        data = pages.compare_item(cur, sets, request.args.get("query"), request.args.get("round"))
        first = pages.find_set(cur, sets[0])
        return render_template(
            "compare_item.html",
            page="compare",
            set=first,
            sets=sets,
            item_pages=has_item_pages(first["agent"]),
            **data,
        )

    @app.get("/compare.csv")
    def compare_csv() -> Response:
        """The comparison (table=metrics) or the paired items of the reference
        and `versus` (table=items) as CSV: /download/compare_<table>.csv."""
        table = request.args.get("table", "metrics")
        if table not in ("metrics", "items"):
            raise pages.BadRequest("table must be metrics or items")
        return download(f"compare_{table}", "csv")

    @app.get("/download/<table>.<fmt>")
    def download(table: str, fmt: str) -> Response:
        """A table of a page as CSV or Parquet, the page's filters applied
        (agent_eval.viewer.downloads)."""
        found = downloads.build(cursor(), table, request.args)
        chunks = downloads.write(cursor(), found, fmt)
        response = Response(chunks, mimetype=downloads.FORMATS[fmt][0])
        response.headers["Content-Disposition"] = f"attachment; filename={downloads.file_name(found.name, fmt)}"
        return response

    @app.get("/<name>")
    def agent_index(name: str) -> str:
        part = pages.viewer_part(name)
        if part is None or not hasattr(part, "index_page"):
            raise pages.NotFound(f"no page {name!r}")
        return render_template(template_of(name, part.INDEX_TEMPLATE), page=name, **part.index_page(cursor()))

    @app.get("/fonts/NanumGothic.ttf")
    def font() -> Response:
        response = Response(web_font_bytes(), mimetype="font/ttf")
        response.cache_control.max_age = 86400
        return response

    @app.get("/healthz")
    def healthz() -> Response:
        cur = cursor()
        n = pages.scalar(cur, "select count(*) from ops.published_tables")
        return Response(f"ok: {n} published tables\n", mimetype="text/plain")

    @app.get("/favicon.ico")
    def favicon() -> Response:
        return redirect(url_for("static", filename="favicon.svg"))

    return app


def fmt_number(value: Any, digits: int = 2) -> str:
    """A number for a cell: fixed decimals, thousands separators; '–' when missing."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, int):
        return f"{value:,}"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if number != number:  # NaN
        return "–"
    return f"{number:,.{digits}f}"


def fmt_date(value: Any) -> str:
    """A date as YYYY-MM-DD, a time as YYYY-MM-DD HH:MM (whatever the
    browser's locale); other values as they are, '–' when missing."""
    if value is None:
        return "–"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def fmt_percent(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    return f"{float(value) * 100:.{digits}f}%"
