"""Failures are not results (issue 37, point 2): a model server that dies mid-run.

A loopback OpenAI-compatible server answers ``FINISH()`` and dies after a few replies. The
sessions whose calls fail end ``provider_error``: ``sessions.csv`` marks them, no aggregate,
report table or paired difference counts them, the summary line and the exit code say so,
and a resume on the same store after the server is back runs exactly those sessions.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pandas as pd
import pytest

from collabsim.cli.errors import EXIT_UNSCORED
from collabsim.cli.run_app import main_with_args
from collabsim.core.errors import PROVIDER_ERROR

REPLY = "THOUGHT: nothing to add.\nACTION: FINISH()"


class ChatServer:
    """``POST /v1/chat/completions`` on 127.0.0.1, answering :data:`REPLY`.

    Args:
        port: Port to listen on (0: any free one).
        lives: Replies it gives before it dies: from then on every request loses its
            connection without an answer (as when the server process is killed), until
            :meth:`stop`, after which the port refuses connections.
        refuse: An HTTP status (e.g. 401) to answer every request with, as an OpenAI-style
            error, instead of replying.
    """

    def __init__(self, port: int = 0, lives: int | None = None,
                 refuse: int | None = None) -> None:
        self.requests = 0
        self.replies = 0
        self.lives = lives
        self.refuse = refuse
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep the test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with server._lock:
                    server.requests += 1
                    alive = server.lives is None or server.replies < server.lives
                    server.replies += alive
                if not alive:
                    self.close_connection = True
                    return  # no status line: the client sees the connection drop
                if server.refuse is not None:
                    error = {"error": {"message": "Incorrect API key provided",
                                       "type": "invalid_request_error",
                                       "code": "invalid_api_key"}}
                    self._send(server.refuse, json.dumps(error).encode())
                    return
                self._send(200, json.dumps({
                    "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                    "model": "x",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": REPLY}}],
                    "usage": {"prompt_tokens": 20, "completion_tokens": 8,
                              "total_tokens": 28},
                }).encode())

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the port."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


@pytest.fixture()
def dummy_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The OpenAI client wants some key even for a local server; the pre-flight check does not.
    monkeypatch.setenv("OPENAI_API_KEY", "dummy-test-key")
    yield


def _args(tmp_path, port: int, job_dir, *more: str, seeds: str = "[0,1,2]",
          retries: int = 0) -> list[str]:
    return [
        "tasks.n_tasks=3", f"tasks.root={tmp_path / 'suite'}", "team=single", f"seeds={seeds}",
        "policy=llm", "llm.agent.model=openai/x",
        f"+llm.agent.extra.api_base=http://127.0.0.1:{port}/v1", f"llm.max_retries={retries}",
        "llm.cache_dir=null", "run.max_concurrency=1", "run.progress=false",
        f"hydra.run.dir={job_dir}", *more,
    ]


def test_a_server_dying_mid_run_leaves_unscored_sessions_that_a_resume_reruns(
        tmp_path, capsys, dummy_key):
    server = ChatServer(lives=2)
    job = tmp_path / "job"
    try:
        code = main_with_args(_args(tmp_path, server.port, job))
    finally:
        server.stop()
    out = capsys.readouterr().out
    assert code == EXIT_UNSCORED == 3
    # 2 answered, then one try per failed session: provider_error is not retried in the job
    assert (server.replies, server.requests) == (2, 9)
    summary = out.strip().splitlines()[-1]
    assert summary.startswith(
        "9 sessions run, 0 reused from the store; 9 sessions: 2 scored, 7 provider_error "
        "(not scored"), summary
    assert "rerun on resume" in summary
    # one console line per failed session, naming its status and why
    failed_lines = [line for line in out.splitlines()
                    if "[WARNING]" in line and "status provider_error" in line]
    assert len(failed_lines) == 7, out
    assert all("openai/x" in line and "not scored" in line for line in failed_lines)

    sessions = pd.read_csv(job / "sessions.csv")
    assert sorted(sessions["status"].value_counts().items()) == [
        ("finished", 2), (PROVIDER_ERROR, 7)]
    failed = sessions[sessions["status"] == PROVIDER_ERROR]
    assert failed["Performance"].isna().all() and failed["W_total"].isna().all()
    scored = sessions[sessions["status"] != PROVIDER_ERROR]
    aggregate = pd.read_csv(job / "aggregate.csv")
    assert list(aggregate["n_sessions"]) == [2]
    assert math.isclose(aggregate["Performance_mean"].iloc[0],
                        scored.groupby("task_id")["Performance"].mean().mean())
    report = (job / "report.txt").read_text()
    assert "provider_error 7" in report
    assert "7 with status provider_error (a model call failed after its retries)" in report

    # the report over the job leaves them out of its tables too
    from collabsim.experiment.sweep_report import build_report

    built = build_report([job], tmp_path / "report", views=None)
    assert list(built.aggregate["n_sessions"]) == [2]
    assert "7 with status provider_error" in (tmp_path / "report" / "report.md").read_text()

    # the server is back (same address): a resume runs exactly the 7 failed sessions
    back = ChatServer(port=server.port)
    try:
        code = main_with_args(_args(tmp_path, back.port, tmp_path / "j2", f"run.store={job}"))
    finally:
        back.stop()
    assert code == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith(
        "7 sessions run, 2 reused from the store, in")
    assert back.requests == 7  # one call per rerun session (each answers FINISH at once)
    again = pd.read_csv(tmp_path / "j2" / "sessions.csv")
    assert set(again["status"]) == {"finished"} and len(again) == 9
    assert list(pd.read_csv(tmp_path / "j2" / "aggregate.csv")["n_sessions"]) == [9]


def test_a_refused_key_is_not_retried_and_each_session_says_so_once(
        tmp_path, capsys, dummy_key):
    server = ChatServer(refuse=401)
    job = tmp_path / "job"
    try:
        code = main_with_args(_args(tmp_path, server.port, job, seeds="[0]", retries=4))
    finally:
        server.stop()
    out = capsys.readouterr().out
    assert code == EXIT_UNSCORED
    assert server.requests == 3  # one per session: an authentication error is not retried
    failed_lines = [line for line in out.splitlines()
                    if "[WARNING]" in line and "status provider_error" in line]
    assert len(failed_lines) == 3
    assert all("AuthenticationError" in line and "failed after 1 tries" in line
               for line in failed_lines)
    assert out.strip().splitlines()[-1].startswith(
        "3 sessions run, 0 reused from the store; 3 sessions: 0 scored, 3 provider_error")
    assert set(pd.read_csv(job / "sessions.csv")["status"]) == {PROVIDER_ERROR}
