"""One HTTP POST of JSON, where every failure becomes a ScorerError.

The standard library's urllib is enough for one blocking POST per batch: no dependency,
proxies and TLS as the system configures them. Network errors, timeouts, non-200 answers
and bodies that are not JSON all leave through the same exception, so the compactor has
one fallback path. Messages name the endpoint without its credentials.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from ctxkeep._version import __version__
from ctxkeep.scorers.base import ScorerError

__all__ = ["MAX_ANSWER_BYTES", "post_json", "reachable", "safe_url"]

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


def post_json(url: str, body: Any, *, key: str | None, timeout: float) -> Any:
    """POST ``body`` as JSON to ``url`` and return the decoded JSON answer."""
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
        headers["Authorization"] = f"Bearer {key}"
    try:
        request = urllib.request.Request(url, data=data, method="POST", headers=headers)
    except ValueError as exc:
        raise ScorerError(f"bad score endpoint {where}: {exc}") from None
    if request.type not in ("http", "https"):
        raise ScorerError(f"score endpoint {where} is not http(s)")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status = response.status
            raw = response.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as exc:
        exc.close()  # it holds the connection open
        raise ScorerError(f"{where} answered HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        raise ScorerError(f"cannot reach {where}: {exc.reason}") from None
    except TimeoutError:
        raise ScorerError(f"{where} did not answer within {timeout:g} s") from None
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise ScorerError(f"{where} failed: {type(exc).__name__}: {exc}") from None
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
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return True, f"{where} answered HTTP {response.status}"
    except urllib.error.HTTPError as exc:
        exc.close()
        return True, f"{where} answered HTTP {exc.code}"
    except urllib.error.URLError as exc:
        return False, f"cannot reach {where}: {exc.reason}"
    except TimeoutError:
        return False, f"{where} did not answer within {timeout:g} s"
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return False, f"{where} failed: {type(exc).__name__}: {exc}"
