"""A real HTTP server on 127.0.0.1, in a thread, that answers as a test tells it to."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# (status, body bytes, delay seconds) for one decoded request body
Responder = Callable[[Any], tuple[int, bytes, float]]


@dataclass
class ScoreServer:
    """What the server saw, and how it answers (``respond`` may be swapped by a test)."""

    url: str
    respond: Responder
    requests: list[dict[str, Any]] = field(default_factory=list)


def json_answer(obj: Any, status: int = 200, delay: float = 0.0) -> tuple[int, bytes, float]:
    return status, json.dumps(obj).encode(), delay


@contextmanager
def score_server(respond: Responder) -> Iterator[ScoreServer]:
    state = ScoreServer("", respond)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, body: Any) -> None:
            state.requests.append(
                {
                    "path": self.path,
                    "method": self.command,
                    "headers": dict(self.headers.items()),
                    "body": body,
                }
            )
            status, payload, delay = state.respond(body)
            if delay:
                time.sleep(delay)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:  # the client gave up (timeout test): nothing to answer
                pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
            self._answer(body)

        def do_GET(self) -> None:
            self._answer(None)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the test output stays clean

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
