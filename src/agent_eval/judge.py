"""Optional LLM correction of the insurance summary metrics (source 004 §10).

``agent-eval judge`` sends the boundary items of ``marts.summary_review_queue``
to an OpenAI-compatible chat completions endpoint and appends one row per
attempt to ``judge.summary_judgments`` (a dbt source). dbt then blends a
successful judgment into the final score (weights in seed
``summary_rule_params``); this module computes no score.

Off by default: nothing is sent unless ``AGENT_EVAL_JUDGE_BASE_URL`` and
``AGENT_EVAL_JUDGE_MODEL`` are set. A timeout, an HTTP error or a reply that
is not a valid score is recorded with its error, and the rule score stays.
"""

from __future__ import annotations

import json
import os
import re
import socket
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb

PROMPT_VERSION = "summary-judge-v1"
ENV_BASE_URL = "AGENT_EVAL_JUDGE_BASE_URL"
ENV_MODEL = "AGENT_EVAL_JUDGE_MODEL"
ENV_API_KEY = "AGENT_EVAL_JUDGE_API_KEY"
ENV_TIMEOUT = "AGENT_EVAL_JUDGE_TIMEOUT_SEC"
DEFAULT_TIMEOUT_SEC = 30.0
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
    """One failed attempt; ``status`` is timeout, http_error, malformed or error."""

    def __init__(self, status: str, message: str, reply_text: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.reply_text = reply_text


@dataclass(frozen=True)
class JudgeConfig:
    base_url: str
    model: str
    api_key: str | None = None
    timeout_sec: float = DEFAULT_TIMEOUT_SEC

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> JudgeConfig | None:
        """The configuration from the environment, or None when not configured."""
        env = os.environ if env is None else env
        base_url = env.get(ENV_BASE_URL, "").strip()
        model = env.get(ENV_MODEL, "").strip()
        if not base_url:
            return None
        if not model:
            raise ValueError(f"{ENV_BASE_URL} is set but {ENV_MODEL} is not: name the model to call")
        timeout = env.get(ENV_TIMEOUT, "").strip()
        try:
            timeout_sec = float(timeout) if timeout else DEFAULT_TIMEOUT_SEC
        except ValueError:
            raise ValueError(f"{ENV_TIMEOUT}={timeout!r} is not a number of seconds") from None
        return cls(base_url, model, env.get(ENV_API_KEY) or None, timeout_sec)


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


def call_endpoint(config: JudgeConfig, messages: list[dict[str, str]]) -> str:
    """POST one chat completion; return the message content or raise JudgeError."""
    body = json.dumps(
        {"model": config.model, "messages": messages, "temperature": 0}, ensure_ascii=False
    ).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key}"
    request = urllib.request.Request(config.endpoint, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=config.timeout_sec) as response:
            raw = response.read().decode("utf-8", errors="replace")
    except urllib.error.HTTPError as err:
        raise JudgeError("http_error", f"HTTP {err.code} from {config.endpoint}") from None
    except (TimeoutError, socket.timeout):
        raise JudgeError("timeout", f"no reply within {config.timeout_sec:g}s") from None
    except urllib.error.URLError as err:
        if isinstance(err.reason, (TimeoutError, socket.timeout)):
            raise JudgeError("timeout", f"no reply within {config.timeout_sec:g}s") from None
        raise JudgeError("error", f"cannot reach {config.endpoint}: {err.reason}") from None
    try:
        payload = json.loads(raw)
        content = payload["choices"][0]["message"]["content"]
    except (json.JSONDecodeError, KeyError, IndexError, TypeError):
        raise JudgeError("malformed", "reply is not a chat completion", raw[:REPLY_TEXT_MAX]) from None
    if not isinstance(content, str):
        raise JudgeError("malformed", "reply message has no text content", raw[:REPLY_TEXT_MAX])
    return content


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


def judge_item(config: JudgeConfig, item: Mapping[str, Any]) -> dict[str, Any]:
    """One attempt on one review item, as a row of judge.summary_judgments."""
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
    try:
        content = call_endpoint(config, build_messages(item))
        row["reply_text"] = content[:REPLY_TEXT_MAX]
        row["llm_score"] = parse_score(content, item["metric"])
    except JudgeError as err:
        row["status"] = err.status
        row["error"] = str(err)
        if err.reply_text is not None:
            row["reply_text"] = err.reply_text[:REPLY_TEXT_MAX]
    row["judged_at"] = datetime.now(timezone.utc).replace(tzinfo=None)
    return row


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
    "judgment_id", "set_id", "file_sha256", "case_id", "metric", "rule_score", "llm_score",
    "status", "error", "model", "prompt_version", "endpoint", "reply_text", "judged_at",
)


@dataclass
class JudgeRun:
    sent: int = 0
    by_status: dict[str, int] = field(default_factory=dict)


def run_judge(db_path: Path, config: JudgeConfig, limit: int | None = None) -> JudgeRun:
    """Judge every review item without a successful judgment by this model
    and prompt version; append one row per attempt."""
    run = JudgeRun()
    with duckdb.connect(str(db_path)) as con:
        try:
            cursor = con.execute(PENDING_SQL, [config.model, PROMPT_VERSION])
        except duckdb.CatalogException as err:
            raise FileNotFoundError(
                f"{db_path} has no summary review queue or judgments table: run `agent-eval build` first ({err})"
            ) from None
        names = [d[0] for d in cursor.description]
        items = [dict(zip(names, r)) for r in cursor.fetchall()]
        if limit is not None:
            items = items[:limit]
        insert = (
            f"insert into judge.summary_judgments ({', '.join(COLUMNS)}) "
            f"values ({', '.join('?' for _ in COLUMNS)})"
        )
        for item in items:
            row = judge_item(config, item)
            con.execute(insert, [row[c] for c in COLUMNS])
            run.sent += 1
            run.by_status[row["status"]] = run.by_status.get(row["status"], 0) + 1
    return run
