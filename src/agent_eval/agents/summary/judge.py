"""Optional LLM correction of the insurance summary metrics (source 004 §10).

``agent-eval judge`` sends the boundary items of ``marts.summary_review_queue``
to an OpenAI-compatible chat completions endpoint and appends one row per
attempt to ``judge.summary_judgments`` (a dbt source). dbt then blends a
successful judgment into the final score (weights in seed
``summary_rule_params``); this module computes no score.

Off by default: nothing is sent unless ``AGENT_EVAL_JUDGE_BASE_URL`` and
``AGENT_EVAL_JUDGE_MODEL`` are set. Requests go through the ``openai`` SDK
(any compatible base URL). Transient failures (HTTP 429 and 5xx, timeouts,
connection errors, a reply that is not a chat completion) are retried with
exponential backoff that honours ``Retry-After``, up to
``AGENT_EVAL_JUDGE_MAX_ATTEMPTS``; a reply that is not a valid score is not
(the model answered). Every attempt is one row, so nothing is lost: a failed
item keeps its rule score and is tried again by the next run. Items run
``AGENT_EVAL_JUDGE_CONCURRENCY`` at a time; ``AGENT_EVAL_JUDGE_MAX_ITEMS``
(or ``--limit``) bounds what one run may send.
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import openai

from agent_eval import db, settings

PROMPT_VERSION = "summary-judge-v1"
ENV_BASE_URL = "AGENT_EVAL_JUDGE_BASE_URL"
ENV_MODEL = "AGENT_EVAL_JUDGE_MODEL"
ENV_API_KEY = "AGENT_EVAL_JUDGE_API_KEY"
ENV_TIMEOUT = "AGENT_EVAL_JUDGE_TIMEOUT_SEC"
ENV_MAX_ATTEMPTS = "AGENT_EVAL_JUDGE_MAX_ATTEMPTS"
ENV_CONCURRENCY = "AGENT_EVAL_JUDGE_CONCURRENCY"
ENV_MAX_ITEMS = "AGENT_EVAL_JUDGE_MAX_ITEMS"
ENV_BACKOFF = "AGENT_EVAL_JUDGE_BACKOFF_SEC"
DEFAULT_TIMEOUT_SEC = 30.0
DEFAULT_MAX_ATTEMPTS = 4
DEFAULT_CONCURRENCY = 4
DEFAULT_BACKOFF_SEC = 1.0  # first wait; doubled on each retry, with jitter
MAX_WAIT_SEC = 60.0  # no wait is longer, whatever Retry-After asks
REPLY_TEXT_MAX = 2000

# The questions of source 004 §10.2, one per metric, and whether the answer
# is binary (0/1) or a score in [0, 1].
QUESTIONS: dict[str, tuple[str, bool]] = {
    "summary_accuracy": ("요약의 수치/기간/조건이 컨텍스트에 근거하는가?", False),
    "summary_risk_coverage": ("요약에 면책/감액/자기부담/한도/조건이 포함되었는가?", False),
    "summary_non_definitive": ("요약이 사실을 단정적으로 확정하지 않는가? (단정하지 않으면 1, 단정하면 0)", False),
    "summary_needs_followup": ("요약에 추가 확인/재문의 안내가 포함되어 있는가?", True),
}

SYSTEM_PROMPT = (
    "You grade summaries of insurance consultations. Answer the question about "
    'the summary with JSON only: {"score": <number>, "reason": "<short reason>"}. '
    "The score is between 0 and 1 (0 or 1 when the question says 0/1)."
)


class JudgeError(Exception):
    """One failed attempt; ``status`` is timeout, http_error, malformed or error.
    ``retryable``: worth another attempt (the endpoint, not the model, failed);
    ``retry_after``: seconds the endpoint asked to wait (Retry-After)."""

    def __init__(
        self,
        status: str,
        message: str,
        reply_text: str | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.reply_text = reply_text
        self.retryable = retryable
        self.retry_after = retry_after


@dataclass(frozen=True)
class JudgeConfig:
    base_url: str
    model: str
    api_key: str | None = None
    timeout_sec: float = DEFAULT_TIMEOUT_SEC
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    concurrency: int = DEFAULT_CONCURRENCY
    max_items: int | None = None
    backoff_sec: float = DEFAULT_BACKOFF_SEC

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> JudgeConfig | None:
        """The configuration from the environment, or None when not configured."""
        base_url = settings.value(ENV_BASE_URL, env)
        model = settings.value(ENV_MODEL, env)
        if not base_url:
            return None
        if not model:
            raise ValueError(f"{ENV_BASE_URL} is set but {ENV_MODEL} is not: name the model to call")

        def number(name: str, default: float | None) -> Any:
            given = settings.value(name, env)
            return default if given is None else given

        return cls(
            base_url,
            model,
            settings.value(ENV_API_KEY, env),
            timeout_sec=number(ENV_TIMEOUT, DEFAULT_TIMEOUT_SEC),
            max_attempts=number(ENV_MAX_ATTEMPTS, DEFAULT_MAX_ATTEMPTS),
            concurrency=number(ENV_CONCURRENCY, DEFAULT_CONCURRENCY),
            max_items=number(ENV_MAX_ITEMS, None),
            backoff_sec=number(ENV_BACKOFF, DEFAULT_BACKOFF_SEC),
        )


def build_messages(item: Mapping[str, Any]) -> list[dict[str, str]]:
    question, binary = QUESTIONS[item["metric"]]
    try:
        contexts = json.loads(item.get("contexts_json") or "[]")
    except json.JSONDecodeError:
        contexts = []
    context_text = "\n".join(f"- {c}" for c in contexts) or "(없음)"
    user = (
        f"질문: {question}{' (0/1)' if binary else ' (0~1)'}\n\n"
        f"[컨텍스트]\n{context_text}\n\n"
        f"[요약]\n{item.get('answer') or ''}\n\n"
        f"[태그] {item.get('summary_tags') or '(없음)'}"
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def client_for(config: JudgeConfig) -> openai.OpenAI:
    """The SDK's client; its own retries are off: attempts are ours, so that
    each is recorded."""
    return openai.OpenAI(
        base_url=config.base_url, api_key=config.api_key or "not-needed", timeout=config.timeout_sec, max_retries=0
    )


def retry_after(response: Any) -> float | None:
    """Seconds from a Retry-After header (a number; an HTTP date is ignored)."""
    value = getattr(response, "headers", {}).get("retry-after") if response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def call_endpoint(config: JudgeConfig, messages: list[dict[str, str]], client: openai.OpenAI | None = None) -> str:
    """One chat completion; return the message content or raise JudgeError."""
    client = client or client_for(config)
    try:
        completion = client.chat.completions.create(model=config.model, messages=messages, temperature=0)
    except openai.APITimeoutError:
        raise JudgeError("timeout", f"no reply within {config.timeout_sec:g}s", retryable=True) from None
    except openai.APIStatusError as err:
        code = err.status_code
        raise JudgeError(
            "http_error",
            f"HTTP {code} from {config.endpoint}",
            (err.response.text or "")[:REPLY_TEXT_MAX] or None,
            retryable=code == 429 or code >= 500,
            retry_after=retry_after(err.response),
        ) from None
    except openai.APIConnectionError as err:
        raise JudgeError("error", f"cannot reach {config.endpoint}: {err}", retryable=True) from None
    except (openai.APIResponseValidationError, json.JSONDecodeError, ValueError) as err:
        raise JudgeError(
            "malformed", f"reply is not a chat completion ({type(err).__name__})", retryable=True
        ) from None
    try:
        content = completion.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        raise JudgeError(
            "malformed", "reply is not a chat completion", str(completion)[:REPLY_TEXT_MAX], retryable=True
        ) from None
    if not isinstance(content, str):
        raise JudgeError("malformed", "reply message has no text content", str(completion)[:REPLY_TEXT_MAX])
    return content


def backoff(config: JudgeConfig, attempt: int, asked: float | None) -> float:
    """Seconds to wait before attempt ``attempt + 1``: what Retry-After asked,
    else ``backoff_sec`` doubled per attempt with up to 25% jitter; at most
    MAX_WAIT_SEC."""
    if asked is not None:
        return min(asked, MAX_WAIT_SEC)
    base = config.backoff_sec * 2 ** (attempt - 1)
    return min(base * (1 + random.random() / 4), MAX_WAIT_SEC)


def parse_score(content: str, metric: str) -> float:
    """The score in a reply's content (a JSON object, possibly fenced)."""
    match = re.search(r"\{.*\}", content, flags=re.DOTALL)
    try:
        obj = json.loads(match.group(0) if match else content)
        score = obj["score"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise JudgeError("malformed", 'reply has no JSON object with a "score"', content) from None
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise JudgeError("malformed", f"score {score!r} is not a number", content)
    if not 0.0 <= float(score) <= 1.0:
        raise JudgeError("malformed", f"score {score} is not in [0, 1]", content)
    if QUESTIONS[metric][1] and float(score) not in (0.0, 1.0):
        raise JudgeError("malformed", f"score {score} is not 0 or 1 ({metric} is a yes/no question)", content)
    return float(score)


def judge_item(
    config: JudgeConfig,
    item: Mapping[str, Any],
    client: openai.OpenAI | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> list[dict[str, Any]]:
    """Every attempt on one review item, each a row of judge.summary_judgments:
    retried while the failure is transient and attempts remain."""
    client = client or client_for(config)
    messages = build_messages(item)
    rows: list[dict[str, Any]] = []
    for attempt in range(1, config.max_attempts + 1):
        row: dict[str, Any] = {
            "judgment_id": str(uuid.uuid4()),
            "set_id": item["set_id"],
            "file_sha256": item["file_sha256"],
            "case_id": item["case_id"],
            "metric": item["metric"],
            "rule_score": item.get("rule_score"),
            "llm_score": None,
            "status": "ok",
            "error": None,
            "model": config.model,
            "prompt_version": PROMPT_VERSION,
            "endpoint": config.endpoint,
            "reply_text": None,
        }
        failure: JudgeError | None = None
        try:
            content = call_endpoint(config, messages, client)
            row["reply_text"] = content[:REPLY_TEXT_MAX]
            row["llm_score"] = parse_score(content, item["metric"])
        except JudgeError as err:
            failure = err
            row["status"] = err.status
            row["error"] = str(err)
            if err.reply_text is not None:
                row["reply_text"] = err.reply_text[:REPLY_TEXT_MAX]
        row["judged_at"] = datetime.now(UTC).replace(tzinfo=None)
        rows.append(row)
        if failure is None or not failure.retryable or attempt == config.max_attempts:
            break
        sleep(backoff(config, attempt, failure.retry_after))
    return rows


PENDING_SQL = """
select q.set_id, q.file_sha256, q.case_id, q.metric, q.rule_score,
       q.answer, q.contexts_json, q.summary_tags
from marts.summary_review_queue as q
where not exists (
    select 1 from judge.summary_judgments as j
    where j.set_id = q.set_id and j.file_sha256 = q.file_sha256
      and j.case_id = q.case_id and j.metric = q.metric
      and j.status = 'ok' and j.model = ? and j.prompt_version = ?
)
order by q.set_id, q.case_id, q.metric
"""

COLUMNS = (
    "judgment_id",
    "set_id",
    "file_sha256",
    "case_id",
    "metric",
    "rule_score",
    "llm_score",
    "status",
    "error",
    "model",
    "prompt_version",
    "endpoint",
    "reply_text",
    "judged_at",
)


@dataclass
class JudgeRun:
    sent: int = 0  # review items sent (each once or more)
    attempts: int = 0  # requests made
    by_status: dict[str, int] = field(default_factory=dict)  # each item's last attempt


def run_judge(
    db_path: Path, config: JudgeConfig, limit: int | None = None, progress: Callable[[str], None] | None = None
) -> JudgeRun:
    """Judge every review item without a successful judgment by this model
    and prompt version, ``concurrency`` at a time; append one row per
    attempt as each item finishes (an interrupted run keeps what it got)."""
    run = JudgeRun()
    progress = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    with duckdb.connect(str(db_path)) as con:
        try:
            items = db.rows(con, PENDING_SQL, [config.model, PROMPT_VERSION])
        except duckdb.CatalogException as err:
            raise FileNotFoundError(
                f"{db_path} has no summary review queue or judgments table: run `agent-eval build` first ({err})"
            ) from None
        bound = limit if limit is not None else config.max_items
        if bound is not None:
            items = items[:bound]
        insert = (
            f"insert into judge.summary_judgments ({', '.join(COLUMNS)}) values ({', '.join('?' for _ in COLUMNS)})"
        )
        client = client_for(config)
        with ThreadPoolExecutor(max_workers=config.concurrency) as pool:
            futures = {pool.submit(judge_item, config, item, client): item for item in items}
            for future in as_completed(futures):
                item = futures[future]
                rows = future.result()
                con.executemany(insert, [[row[c] for c in COLUMNS] for row in rows])
                run.sent += 1
                run.attempts += len(rows)
                last = rows[-1]
                run.by_status[last["status"]] = run.by_status.get(last["status"], 0) + 1
                progress(
                    f"judge [{run.sent}/{len(items)}] {item['set_id']} case {item['case_id']} "
                    f"{item['metric']}: {last['status']}"
                    + (f" after {len(rows)} attempts" if len(rows) > 1 else "")
                    + (f" ({last['error']})" if last["error"] else "")
                )
    return run
