"""The optional LLM correction (source 004 §10) against a fake OpenAI-compatible
endpoint on 127.0.0.1, through the openai SDK: successes are blended (final =
0.7 rule + 0.3 llm); 429 and 5xx replies, timeouts and replies that are not a
chat completion are retried with backoff (honouring Retry-After) up to the
attempt limit, and every attempt is recorded; replies that are not a valid
score are recorded once and leave the rule score in force. Same fixture as
test_summary_end_to_end (its review queue: 9 items, listed there)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from agent_eval import cli
from agent_eval.agents.summary import commands, judge
from conftest import Warehouse

CLAIMS = "2026-11-03/summary_claims.json"
BOM = "2026-11-03/summary_bom.json"
TIMEOUT_SEC = 1.0
MAX_ATTEMPTS = 3
CONCURRENCY = 3
RETRY_MARKER = "RETRY-AFTER-PROBE"  # an item only test_retry_after_is_honoured sends

# (marker in the answer, metric) -> what the fake endpoint does on the 1st,
# 2nd, ... request for that item (the last action repeats)
SCRIPT: dict[tuple[str, str], list[object]] = {
    ("무조건 전액", "summary_accuracy"): [429, '{"score": 0.9, "reason": "대체로 근거 있음"}'],  # retried
    ("무조건 전액", "summary_non_definitive"): ['{"score": 0.2}'],
    ("청구 절차", "summary_accuracy"): ["근거가 충분해 보입니다."],  # no JSON: malformed, not retried
    ("면책기간 90일", "summary_needs_followup"): ["sleep"],  # every attempt times out
    ("5,000만원 안내", "summary_needs_followup"): ["not json", 500, '{"score": 1}'],  # retried twice
    ("DEDUCTIBLE", "summary_risk_coverage"): ['```json\n{"score": 0.5}\n```'],  # fenced JSON is fine
    ("DEDUCTIBLE", "summary_needs_followup"): ['{"score": 0.5}'],  # a 0/1 question: malformed
    ("3.50%", "summary_risk_coverage"): [500],  # every attempt: HTTP 500
    ("3.50%", "summary_needs_followup"): ['{"score": 1}'],
    (RETRY_MARKER, "summary_accuracy"): [429, '{"score": 0.4}'],
}


class FakeChat(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict]] = []
    served: ClassVar[dict[tuple[str, str], int]] = {}
    active = 0
    most_active = 0
    lock = threading.Lock()

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:
        with FakeChat.lock:
            FakeChat.active += 1
            FakeChat.most_active = max(FakeChat.most_active, FakeChat.active)
        try:
            self.answer()
        finally:
            with FakeChat.lock:
                FakeChat.active -= 1

    def answer(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeChat.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        user = body["messages"][-1]["content"]
        metric = next(m for m, (q, _) in judge.QUESTIONS.items() if q in user)
        key = next(k for k in SCRIPT if k[1] == metric and k[0] in user)
        with FakeChat.lock:
            n = FakeChat.served.get(key, 0)
            FakeChat.served[key] = n + 1
        action = SCRIPT[key][min(n, len(SCRIPT[key]) - 1)]
        if action == "sleep":
            time.sleep(TIMEOUT_SEC * 2)  # the client has given up: answer nothing
            return
        if isinstance(action, int):
            self.send_response(action)
            self.send_header("Retry-After", "1" if action == 429 else "0")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if action == "not json":  # a proxy's error page with status 200
            reply = b"<html>502 Bad Gateway</html>"
        else:
            reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": action}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


@pytest.fixture(scope="module")
def fake_endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeChat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def judged(module_built, fake_endpoint) -> Warehouse:
    wh, code = module_built("summary_basic")
    assert code == cli.EXIT_REJECTED  # the fixture's deliberate bad input
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(judge.ENV_BASE_URL, fake_endpoint)
        mp.setenv(judge.ENV_MODEL, "fake-judge-1")
        mp.setenv(judge.ENV_API_KEY, "sk-test")
        mp.setenv(judge.ENV_TIMEOUT, str(TIMEOUT_SEC))
        mp.setenv(judge.ENV_MAX_ATTEMPTS, str(MAX_ATTEMPTS))
        mp.setenv(judge.ENV_CONCURRENCY, str(CONCURRENCY))
        mp.setenv(judge.ENV_BACKOFF, "0.01")
        assert commands.cmd_judge(cli.command_kit(), wh.paths) == cli.EXIT_OK  # judges, rebuilds the marts, publishes
    return wh


def test_requests_are_chat_completions_with_the_key(judged):
    # 9 review items; retried: 429 then ok (2), not json / 500 / ok (3), 500
    # three times (3), a timeout three times (3): 9 + 1 + 2 + 2 + 2 = 16
    assert len(FakeChat.requests) == 16
    first = FakeChat.requests[0]
    assert first["path"] == "/v1/chat/completions"
    assert first["auth"] == "Bearer sk-test"
    assert first["body"]["model"] == "fake-judge-1"


def test_every_attempt_is_recorded_with_model_and_prompt_version(judged):
    rows = judged.query(
        "select case_id, metric, status, llm_score, model, prompt_version from judge.summary_judgments "
        "order by 1, 2, judged_at"
    )
    v = judge.PROMPT_VERSION
    assert rows == [
        ("7", "summary_needs_followup", "ok", 1.0, "fake-judge-1", v),
        *[("7", "summary_risk_coverage", "http_error", None, "fake-judge-1", v)] * MAX_ATTEMPTS,
        *[("tc-001", "summary_needs_followup", "timeout", None, "fake-judge-1", v)] * MAX_ATTEMPTS,
        ("tc-002", "summary_accuracy", "http_error", None, "fake-judge-1", v),  # 429
        ("tc-002", "summary_accuracy", "ok", 0.9, "fake-judge-1", v),
        ("tc-002", "summary_non_definitive", "ok", 0.2, "fake-judge-1", v),
        ("tc-003", "summary_needs_followup", "malformed", None, "fake-judge-1", v),  # not retried
        ("tc-003", "summary_risk_coverage", "ok", 0.5, "fake-judge-1", v),
        ("tc-004", "summary_accuracy", "malformed", None, "fake-judge-1", v),  # not retried
        ("tc-005", "summary_needs_followup", "malformed", None, "fake-judge-1", v),  # not json: retried
        ("tc-005", "summary_needs_followup", "http_error", None, "fake-judge-1", v),
        ("tc-005", "summary_needs_followup", "ok", 1.0, "fake-judge-1", v),
    ]
    assert 2 <= FakeChat.most_active <= CONCURRENCY  # items ran side by side, never more than allowed
    errors = dict(
        judged.query("select case_id || '/' || metric, error from judge.summary_judgments where status <> 'ok'")
    )
    assert errors["tc-001/summary_needs_followup"] == "no reply within 1s"
    assert errors["tc-004/summary_accuracy"] == 'reply has no JSON object with a "score"'
    assert errors["tc-003/summary_needs_followup"].startswith("score 0.5 is not 0 or 1")
    assert errors["7/summary_risk_coverage"].startswith("HTTP 500")
    assert dict(
        judged.query(
            "select case_id, error from judge.summary_judgments where case_id = 'tc-005' and status = 'malformed'"
        )
    )["tc-005"].startswith("reply is not a chat completion")


def test_final_scores_blend_successful_judgments_only(judged):
    rows = {r["case_id"]: r for r in judged.dicts("select * from marts.summary_case_scores where set_id = ?", [CLAIMS])}
    # tc-002 accuracy: 0.7 x 1/3 + 0.3 x 0.9 = 0.2333 + 0.27 = 0.5033; rule and llm kept
    assert rows["tc-002"]["summary_accuracy"] == pytest.approx(0.7 / 3 + 0.27)
    assert rows["tc-002"]["summary_accuracy_rule_score"] == pytest.approx(1 / 3)
    assert rows["tc-002"]["summary_accuracy_llm_score"] == 0.9
    # tc-002 non_definitive: 0.7 x 0 + 0.3 x 0.2 = 0.06 (still below 0.8)
    assert rows["tc-002"]["summary_non_definitive"] == pytest.approx(0.06)
    assert rows["tc-002"]["is_summary_non_definitive_pass"] is False
    # tc-003 coverage: 0.7 x 1 + 0.3 x 0.5 = 0.85 (< 0.9: now fails)
    assert rows["tc-003"]["summary_risk_coverage"] == pytest.approx(0.85)
    assert rows["tc-003"]["is_summary_risk_coverage_pass"] is False
    # tc-005 needs_followup: 0.7 x 1 + 0.3 x 1 = 1.0
    assert rows["tc-005"]["summary_needs_followup"] == pytest.approx(1.0)
    # failed attempts leave the rule score: tc-004 accuracy 0.5 (malformed),
    # tc-001 needs_followup 1.0 (timeout), tc-003 needs_followup 0.0 (not 0/1)
    assert (rows["tc-004"]["summary_accuracy"], rows["tc-004"]["summary_accuracy_llm_score"]) == (0.5, None)
    assert rows["tc-001"]["summary_needs_followup"] == 1.0
    assert rows["tc-003"]["summary_needs_followup"] == 0.0
    bom = judged.dicts("select * from marts.summary_case_scores where set_id = ?", [BOM])[0]
    assert bom["summary_risk_coverage"] == 1.0  # HTTP 500: rule stays


def test_set_means_use_final_scores(judged):
    means = dict(judged.query("select metric, mean_score from marts.summary_set_metrics where set_id = ?", [CLAIMS]))
    # accuracy (1 + 0.5033 + 1 + 0.5 + 0) / 5; coverage (1 + 0 + 0.85 + 0 + 2/3) / 5;
    # non_definitive (1 + 0.06 + 1 + 1 + 1) / 5 = 0.812
    assert means["summary_accuracy"] == pytest.approx((1 + 0.7 / 3 + 0.27 + 1 + 0.5 + 0) / 5)
    assert means["summary_risk_coverage"] == pytest.approx((1 + 0 + 0.85 + 0 + 2 / 3) / 5)
    assert means["summary_non_definitive"] == pytest.approx(0.812)
    assert means["summary_needs_followup"] == pytest.approx(0.8)
    assert judged.query("select judge_status, count(*) from marts.summary_review_queue group by 1 order by 1") == [
        ("failed", 4),
        ("judged", 5),
    ]


def test_a_second_run_retries_only_failed_items(judged, fake_endpoint):
    config = judge.JudgeConfig(
        fake_endpoint,
        "fake-judge-1",
        None,
        TIMEOUT_SEC,
        max_attempts=MAX_ATTEMPTS,
        concurrency=CONCURRENCY,
        backoff_sec=0.01,
    )
    before = len(FakeChat.requests)
    lines: list[str] = []
    run = judge.run_judge(judged.paths.db_path, config, progress=lines.append)
    # the 4 failed items: 500 and the timeout up to the limit, the two malformed once
    assert run.sent == 4 and run.attempts == 2 * MAX_ATTEMPTS + 2 == len(FakeChat.requests) - before
    assert run.by_status == {"http_error": 1, "malformed": 2, "timeout": 1}
    assert sorted(line.split("]")[0] for line in lines) == [f"judge [{i}/4" for i in range(1, 5)]


def test_retry_after_is_honoured_and_the_limit_bounds_a_run(fake_endpoint):
    config = judge.JudgeConfig(fake_endpoint, "fake-judge-1", None, TIMEOUT_SEC, max_attempts=MAX_ATTEMPTS)
    item = {
        "set_id": "s",
        "file_sha256": "h",
        "case_id": "c",
        "metric": "summary_accuracy",
        "answer": f"{RETRY_MARKER} 요약",
        "contexts_json": "[]",
    }
    waits: list[float] = []
    rows = judge.judge_item(config, item, sleep=waits.append)
    assert [(r["status"], r["llm_score"]) for r in rows] == [("http_error", None), ("ok", 0.4)]
    assert waits == [1.0]  # the 429's Retry-After: 1, not the exponential backoff
    # without Retry-After: backoff_sec doubled per attempt, up to 25% jitter, capped
    assert 1.0 <= judge.backoff(config, 1, None) <= 1.25 and 4.0 <= judge.backoff(config, 3, None) <= 5.0
    assert judge.backoff(config, 1, 3600.0) == judge.MAX_WAIT_SEC
    limited = judge.JudgeConfig.from_env({judge.ENV_BASE_URL: "x", judge.ENV_MODEL: "m", judge.ENV_MAX_ITEMS: "2"})
    assert limited.max_items == 2


def test_configuration_errors_are_usage_errors(monkeypatch, tmp_path):
    from agent_eval.project import Paths

    monkeypatch.setenv(judge.ENV_BASE_URL, "http://127.0.0.1:9/v1")
    monkeypatch.delenv(judge.ENV_MODEL, raising=False)
    paths = Paths(tmp_path, tmp_path / "w.duckdb", tmp_path, tmp_path)
    assert commands.cmd_judge(cli.command_kit(), paths) == cli.EXIT_USAGE
    with pytest.raises(ValueError, match="not a number"):
        judge.JudgeConfig.from_env({judge.ENV_BASE_URL: "x", judge.ENV_MODEL: "m", judge.ENV_TIMEOUT: "soon"})
    with pytest.raises(ValueError, match="at least 1"):
        judge.JudgeConfig.from_env({judge.ENV_BASE_URL: "x", judge.ENV_MODEL: "m", judge.ENV_CONCURRENCY: "0"})


def test_parse_score_rejects_what_is_not_a_score():
    assert judge.parse_score('{"score": 0.25}', "summary_accuracy") == 0.25
    for content in ('{"score": true}', '{"score": "0.5"}', '{"score": 1.5}', '{"reason": "x"}', "[1]"):
        with pytest.raises(judge.JudgeError) as err:
            judge.parse_score(content, "summary_accuracy")
        assert err.value.status == "malformed"


def test_judged_scores_are_published_at_once(judged):
    """`agent-eval judge` publishes after its rebuild: readers of the published
    file see the corrected score without waiting for the next nightly build."""
    import duckdb

    with duckdb.connect(str(judged.paths.published_db), read_only=True) as con:
        published = con.execute(
            "select summary_accuracy, summary_accuracy_llm_score from marts.summary_case_scores "
            "where set_id = ? and case_id = 'tc-002'",
            [CLAIMS],
        ).fetchone()
    assert published == (pytest.approx(0.7 / 3 + 0.27), 0.9)
