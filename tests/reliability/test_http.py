"""Issue 14, HTTP: a total deadline, no redirect with the key, the key never printed.

Every server here is a real one on 127.0.0.1 (a raw socket, so a test says exactly which
bytes go out and when).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ctxkeep.scorers import Candidate, ScoreRequest, ScorerError
from ctxkeep.scorers.http import HttpScorer
from tests.conftest import run_cli

KEY = "sk-test-123"
REQUEST = ScoreRequest("q", "task", (Candidate(0, "a message", 1),))


@contextmanager
def raw_server(answer: Callable[[socket.socket, bytes], None]) -> Iterator[tuple[str, list[bytes]]]:
    """A one-thread HTTP server on 127.0.0.1: ``answer(conn, request_bytes)`` writes the
    reply. Yields its URL and the raw requests it received."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    seen: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(30)
                data = b""
                try:
                    while b"\r\n\r\n" not in data:
                        data += conn.recv(65536)
                    head, _, body = data.partition(b"\r\n\r\n")
                    length = next(
                        (
                            int(h.split(b":")[1])
                            for h in head.split(b"\r\n")
                            if h.lower().startswith(b"content-length:")
                        ),
                        0,
                    )
                    while len(body) < length:
                        body += conn.recv(65536)
                    seen.append(head + b"\r\n\r\n" + body)
                    answer(conn, head)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/score", seen
    finally:
        stop.set()
        thread.join()
        listener.close()


def _reply(body: bytes, status: str = "200 OK", extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n{extra}Connection: close\r\n\r\n"
    ).encode() + body


def test_a_trickling_server_is_cut_at_the_total_deadline() -> None:
    # --timeout bounded each socket read: one byte a second held a 2 s timeout for 364 s
    body = b'{"score": 0.5}' + b" " * 26
    stopped = threading.Event()

    def trickle(conn: socket.socket, _: bytes) -> None:
        reply = _reply(body)
        for i in range(len(reply)):
            if stopped.is_set():
                return
            conn.sendall(reply[i : i + 1])
            time.sleep(0.1)  # each byte well inside the timeout, the whole far past it

    with raw_server(trickle) as (url, _):
        with pytest.raises(ScorerError, match=r"did not answer within 0\.5 s"):
            HttpScorer(url, KEY, timeout=0.5).score(REQUEST)
        stopped.set()


def test_a_redirect_elsewhere_is_not_followed_with_the_key() -> None:
    # a 302 to another port was followed with Authorization: Bearer <key>
    with raw_server(lambda c, _: c.sendall(_reply(b"{}"))) as (other, other_seen):
        location = f"Location: {other}\r\n"
        redirect = _reply(b"", "302 Found", location)
        with raw_server(lambda c, _: c.sendall(redirect)) as (url, seen):
            with pytest.raises(ScorerError, match=r"HTTP 302 .*redirect to .*not followed"):
                HttpScorer(url, KEY, timeout=5).score(REQUEST)
            assert len(seen) == 1
        assert other_seen == []


@pytest.mark.parametrize("key", [KEY + "\n", KEY + " ", "sk-\u00e9" + KEY])
def test_a_key_that_is_no_header_value_is_refused_and_never_printed(key: str) -> None:
    with raw_server(lambda c, _: c.sendall(_reply(b'{"score": 0.5}'))) as (url, seen):
        with pytest.raises(ScorerError) as caught:
            HttpScorer(url, key, timeout=5).score(REQUEST)
        assert KEY not in str(caught.value)
        assert "not a valid header value" in str(caught.value)
        assert seen == []  # refused before any request


def test_the_cli_never_prints_a_key_with_a_newline(tmp_path: Path) -> None:
    # CTXKEEP_SCORE_KEY=$'sk-test-123\n' was printed in full in warnings and by doctor
    conv = tmp_path / "c.json"
    conv.write_text(
        '[{"role": "user", "content": "' + "x " * 400 + '"}, '
        '{"role": "assistant", "content": "' + "y " * 400 + '"}]'
    )
    with raw_server(lambda c, _: c.sendall(_reply(b'{"score": 0.5}'))) as (url, _):
        env = {"CTXKEEP_SCORE_KEY": KEY + "\n", "CTXKEEP_SCORE_URL": url}
        runs = [
            run_cli(
                "compact",
                str(conv),
                "--target-bytes",
                "300",
                "--scorer",
                "http",
                "--keep-recent",
                "0",
                env=env,
            ),
            run_cli("doctor", "--probe", env=env),
        ]
    for done in runs:
        assert "Traceback" not in done.stderr
        assert KEY not in done.stdout + done.stderr, done.stdout + done.stderr
    assert "not a valid header value" in runs[1].stdout


def test_doctor_probe_survives_a_400_digit_score() -> None:
    # {"score": 1e400 written as an integer} raised OverflowError in doctor --probe
    huge = b'{"score": 1' + b"0" * 400 + b"}"
    with raw_server(lambda c, _: c.sendall(_reply(huge))) as (url, _):
        done = run_cli(
            "doctor", "--probe", env={"CTXKEEP_SCORE_KEY": KEY, "CTXKEEP_SCORE_URL": url}
        )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1
    assert "is not a number" in done.stdout
