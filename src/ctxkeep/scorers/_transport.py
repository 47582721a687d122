"""One HTTP POST of JSON, where every failure becomes a ScorerError.

The standard library's urllib is enough for one blocking POST per batch: no dependency,
proxies and TLS as the system configures them. Network errors, timeouts, non-200 answers
and bodies that are not JSON all leave through the same exception, so the compactor has
one fallback path. Messages name the endpoint without its credentials.

What a hostile or broken endpoint cannot do (issue 14, docs/reliability.md):

- hold a run longer than the timeout: it is a deadline for the whole request (connect,
  send, headers, body), not for each socket read -- a server trickling one byte a second
  held a 2 s timeout for 364 s. At the deadline the connection is shut down;
- receive the key elsewhere: no redirect is followed (a 302 to another host was followed
  with ``Authorization: Bearer <key>``); the redirect is reported, with its target's
  address;
- see the key in a message: a key that is not a valid header value (a trailing newline
  from ``$(cat key)``-less shells, a space) is refused before any request, and no
  message ever holds it.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ctxkeep._version import __version__
from ctxkeep.scorers.base import ScorerError, timeout_from_env

__all__ = [
    "MAX_ANSWER_BYTES",
    "bad_key_reason",
    "post_json",
    "reachable",
    "safe_url",
    "timeout_from_env",
]

MAX_ANSWER_BYTES = 4 << 20
"""A score answer larger than this is not a score answer."""


def safe_url(url: str) -> str:
    """``url`` without user:password, query or fragment: safe for messages and receipts."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<unparsable url>"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def bad_key_reason(key: str, name: str = "CTXKEEP_SCORE_KEY") -> str | None:
    """Why ``key`` (the variable ``name`` holds it) cannot be sent as a bearer token
    (never quoting it), or None.

    A header value must be printable ASCII: a key with a newline would be refused by the
    HTTP library with the whole header in its message, printing the key.
    """
    for i, ch in enumerate(key):
        if not "!" <= ch <= "~":
            what = {"\n": "a newline", "\r": "a carriage return", " ": "a space", "\t": "a tab"}
            what_char = what.get(ch, f"character U+{ord(ch):04X}")
            where = "ends with" if i == len(key) - 1 else f"holds at position {i + 1}"
            return (
                f"{name} {where} {what_char}: not a valid header value, not sent "
                f"(a key is printable ASCII without spaces)"
            )
    return None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follow no redirect: the key goes to the URL given and nowhere else."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class _Deadline:
    """Shuts down every connection of one request when its time is up, so no read waits
    past the deadline however the server paces its bytes."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._connections: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def track(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            self._connections.append(connection)
            if self.expired:
                self._shut(connection)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for connection in self._connections:
                self._shut(connection)

    @staticmethod
    def _shut(connection: http.client.HTTPConnection) -> None:
        sock = connection.sock
        if sock is not None:
            # the plain socket's shutdown: a blocked read (TLS too) returns at once
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    @contextmanager
    def running(self) -> Iterator[_Deadline]:
        self._timer.start()
        try:
            yield self
        finally:
            self._timer.cancel()


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib's opener (proxies, TLS as configured) with no redirects, every connection
    tracked by ``deadline``."""

    def tracked(cls: type[http.client.HTTPConnection]) -> Any:
        def connect(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
            connection = cls(*args, **kwargs)
            deadline.track(connection)
            return connection

        return connect

    class Http(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(tracked(http.client.HTTPConnection), req)

    class Https(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(
                tracked(http.client.HTTPSConnection),
                req,
                context=self._context,  # type: ignore[attr-defined]
            )

    return urllib.request.build_opener(_NoRedirect, Http, Https)


def _redirect_note(exc: urllib.error.HTTPError) -> str:
    location = exc.headers.get("Location") if exc.headers is not None else None
    if exc.code not in (301, 302, 303, 307, 308) or not location:
        return ""
    target = safe_url(urllib.parse.urljoin(exc.url or "", location))
    return f" (a redirect to {target}, not followed: the key goes only to the URL given)"


def _scrub(message: str, key: str | None) -> str:
    """``message`` with any copy of ``key`` masked (a library quoting a header)."""
    if key and len(key) >= 4 and key in message:
        message = message.replace(key, "<the key>")
    return message


def post_json(
    url: str, body: Any, *, key: str | None, timeout: float, key_name: str = "CTXKEEP_SCORE_KEY"
) -> Any:
    """POST ``body`` as JSON to ``url`` and return the decoded JSON answer (``key_name``:
    where the key came from, for the message that refuses it)."""
    where = safe_url(url)
    try:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError) as exc:
        raise ScorerError(f"cannot encode the request for {where}: {exc}") from None
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": f"ctxkeep/{__version__}",
    }
    if key:
        bad = bad_key_reason(key, key_name)
        if bad is not None:
            raise ScorerError(bad)
        headers["Authorization"] = f"Bearer {key}"
    try:
        request = urllib.request.Request(url, data=data, method="POST", headers=headers)
    except ValueError as exc:
        raise ScorerError(_scrub(f"bad endpoint {where}: {exc}", key)) from None
    if request.type not in ("http", "https"):
        raise ScorerError(f"endpoint {where} is not http(s)")
    deadline = _Deadline(timeout)
    late = f"{where} did not answer within {timeout:g} s (the whole request)"
    try:
        with deadline.running(), _opener(deadline).open(request, timeout=timeout) as response:
            status = response.status
            raw = response.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as exc:
        exc.close()  # it holds the connection open
        raise ScorerError(f"{where} answered HTTP {exc.code}{_redirect_note(exc)}") from None
    except urllib.error.URLError as exc:
        if deadline.expired:
            raise ScorerError(late) from None
        raise ScorerError(_scrub(f"cannot reach {where}: {exc.reason}", key)) from None
    except TimeoutError:
        raise ScorerError(late) from None
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if deadline.expired:
            raise ScorerError(late) from None
        raise ScorerError(_scrub(f"{where} failed: {type(exc).__name__}: {exc}", key)) from None
    if deadline.expired:  # the body was cut at the deadline
        raise ScorerError(late)
    if status != 200:
        raise ScorerError(f"{where} answered HTTP {status}")
    if len(raw) > MAX_ANSWER_BYTES:
        raise ScorerError(f"{where} answered more than {MAX_ANSWER_BYTES} bytes")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise ScorerError(f"{where} answered a body that is not JSON") from None


def reachable(url: str, *, timeout: float) -> tuple[bool, str]:
    """Whether anything answers HTTP at ``url`` (any status counts), and what it said."""
    where = safe_url(url)
    try:
        request = urllib.request.Request(url, method="GET")
    except ValueError as exc:
        return False, f"bad URL {where}: {exc}"
    if request.type not in ("http", "https"):
        return False, f"{where} is not http(s)"
    deadline = _Deadline(timeout)
    try:
        with deadline.running(), _opener(deadline).open(request, timeout=timeout) as response:
            return True, f"{where} answered HTTP {response.status}"
    except urllib.error.HTTPError as exc:
        exc.close()
        return True, f"{where} answered HTTP {exc.code}{_redirect_note(exc)}"
    except urllib.error.URLError as exc:
        return False, f"cannot reach {where}: {exc.reason}"
    except TimeoutError:
        return False, f"{where} did not answer within {timeout:g} s"
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return False, f"{where} failed: {type(exc).__name__}: {exc}"
