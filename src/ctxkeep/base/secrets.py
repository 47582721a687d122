"""Secrets in the logs, masked in everything ctxkeep writes (issue 14).

Agent sessions hold keys: a user pastes one, a tool prints ``env``, a config file is read.
An audit repeats evidence from the log (a lost constraint, a source line, the replaced
history in the HTML page), and a key in that evidence would be copied into a CI artifact
(one HTML page repeated one key 64 times). So every report -- text, JSON, SARIF, HTML, the
``diff`` view -- and every receipt is masked by default: each secret becomes
``REDACTED:<detector>``. ``--show-secrets`` opts out.

Detection follows detect-secrets: each :class:`Detector` is pure declaration, a name and
a pattern, with named false-positive filters (pure predicates, each with the real case that
needed it). Patterns are written for linear time (no nested quantifiers) and find a secret
in raw text as well as inside a JSON string (``\\"`` quotes, ``\\n`` escapes) or escaped
HTML (``&quot;``), because masking applies to the finished report. A match never starts or
ends inside an escape sequence, and the mask holds no quote, backslash, ``<``, ``>`` or
``&``, so a masked JSON report is still valid JSON and a masked page still valid HTML.
The mask is also a literal regex (a masked ``--pin`` pattern in a receipt matches nothing).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "DETECTORS",
    "MASK_PREFIX",
    "Detector",
    "SecretHit",
    "find_secrets",
    "mask_secrets",
]

MASK_PREFIX = "REDACTED"
"""How a masked secret starts: ``REDACTED:<detector>``."""

# An optional quote before a value: raw, JSON-escaped, or HTML-escaped.
_QUOTE = rb"""(?:\\?["'`]|&quot;|&\#x27;|&\#39;)?"""
_KEYWORDS = (
    rb"api[_-]?key", rb"apikey", rb"secret", rb"token", rb"access[_-]?key", rb"auth[_-]?key",
    rb"credential", rb"private[_-]?key", rb"session[_-]?key",
)  # fmt: skip
"""Names of a setting that holds a key: one pattern each, so each starts with a literal
(one alternation of them all scanned a report 4x slower)."""
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


@dataclass(frozen=True, slots=True)
class SecretHit:
    """One secret found: the detector's name and the span masked."""

    detector: str
    start: int
    end: int


# --- false-positive filters: a value that is NOT a secret --------------------------------


def is_already_redacted(value: str) -> bool:
    """The log masked it already. Real case: a Claude Code log holds
    ``https://cursor.com/open?REDACTED.REDACTED.REDACTED`` and ``.REDACTED.jsonl``;
    and a masked report masked again must stay as it is."""
    upper = value.upper()
    return "REDACTED" in upper or set(value) <= {"*", "x", "X", "•", "."}


def is_placeholder(value: str) -> bool:
    """A template or an example, not a value: ``password=${DB_PASSWORD}``,
    ``token=<your-token>``, ``api_key={API_KEY}``, ``%s``. Real case: README snippets
    and shell commands an agent writes (``export OPENAI_API_KEY=$OPENAI_API_KEY``)."""
    return (
        value.startswith(("$", "<", "{", "%", "your", "YOUR", "<your"))
        or value.endswith(("}", ">"))
        or value.lower() in {"none", "null", "true", "false", "changeme", "example", "test"}
    )


def is_code_reference(value: str) -> bool:
    """A name in code, not a value: ``password = request.form``, ``token=self.token``,
    ``password=password``. Real case: agents read and write code that handles credentials
    all session long. A dotted identifier with no digit is taken for code."""
    return re.fullmatch(r"[A-Za-z_][A-Za-z_.]*", value) is not None


def is_path(value: str) -> bool:
    """A file path, not a key: ``token_file=/home/maya/.config/gh/token.json``,
    ``secret_path: ./keys/dev.pem``. Real case: agents pass credential *files* around far
    more often than credentials. Keys in base64 may hold ``/`` but do not start with one
    nor end in a file extension."""
    return value.startswith(("/", "./", "../", "~/")) or (
        "/" in value and re.search(r"\.[A-Za-z]{1,5}$", value) is not None
    )


def is_low_entropy(value: str) -> bool:
    """Too regular to be a generated key: ``token: aaaaaaaaaaaaaaaaaaaa``,
    ``sk-learn-tutorial-notebooks``. Keys of the common providers have a Shannon entropy
    near 4.5 bits per character or more; repeated letters and plain words lie below 3,
    and an all-lowercase word run is taken for words."""
    letters = value.replace("-", "").replace("_", "")
    return shannon_entropy(value) < 3.0 or (letters.isalpha() and letters.islower())


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``'s character distribution."""
    if not text:
        return 0.0
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


# --- detectors ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Detector:
    """A named pattern; its ``secret`` group (else the whole match) is what is masked.

    Patterns are bytes, run over the UTF-8 of a report (``lowered``: over its ASCII
    lower-cased copy, for case-blind keywords; the same offsets). ``word`` detectors
    match a token that must start where a word starts: not inside a word nor right after
    a backslash (inside an escape such as ``\\u00e9``), but right after the JSON escape
    of a line break or tab. ``filters`` are false-positive predicates on the secret: any
    True and it is left alone.
    """

    name: str
    pattern: re.Pattern[bytes]
    filters: tuple[Callable[[str], bool], ...] = (is_already_redacted,)
    lowered: bool = False
    word: bool = False


def _d(
    name: str,
    pattern: bytes,
    *filters: Callable[[str], bool],
    lowered: bool = False,
    word: bool = False,
) -> Detector:
    tail = rb"(?![A-Za-z0-9_])" if word else b""
    return Detector(
        name, re.compile(pattern + tail), (is_already_redacted, *filters), lowered, word
    )


DETECTORS: tuple[Detector, ...] = (
    _d(
        "private-key",
        rb"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
        rb"(?:(?:[ \t\r\n]|\\[nrt])+[A-Za-z0-9+/=]+)*(?:[ \t\r\n]|\\[nrt])*"
        rb"(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----)?",
    ),
    _d("aws-access-key-id", rb"A(?:KIA|SIA|BIA|CCA)[0-9A-Z]{16}", word=True),
    _d("github-token", rb"gh[pousr]_[A-Za-z0-9]{36,255}", word=True),
    _d("github-token", rb"github_pat_[A-Za-z0-9_]{22,255}", word=True),
    _d("anthropic-api-key", rb"sk-ant-[a-z]{2,10}\d{0,3}-[A-Za-z0-9_\-]{20,}", word=True),
    _d(
        "openai-api-key",
        rb"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        is_low_entropy,
        word=True,
    ),
    _d("slack-token", rb"xox[abposr]-[A-Za-z0-9\-]{10,}", word=True),
    _d("stripe-key", rb"[spr]k_(?:live|test)_[A-Za-z0-9]{16,}", word=True),
    _d("google-api-key", rb"AIza[0-9A-Za-z_\-]{35}", word=True),
    _d(
        "json-web-token",
        rb"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        word=True,
    ),
    _d(
        "bearer-token",
        rb"bearer[ \t]+(?P<secret>[a-z0-9._~+/=\-]{16,})(?![a-z0-9_])",
        is_placeholder,
        is_low_entropy,
        lowered=True,
    ),
    _d(
        "url-password",
        rb"://[^\s:/@\"'<>\\]{1,256}:"
        rb"(?P<secret>[^\s:/@\"'<>\\]{3,256})@",
        is_placeholder,
    ),
    _d(
        "password-assignment",
        rb"(?:password|passwd|passphrase|pwd)"
        + _QUOTE
        + rb"[ \t]{0,3}[:=][ \t]{0,3}"
        + _QUOTE
        + rb"(?P<secret>[^\s\"'`\\&<>,;)(\]\[{}]{4,200})",
        is_placeholder,
        is_code_reference,
        lowered=True,
    ),
    *(
        _d(
            "high-entropy-keyword-value",
            keyword
            + rb"[a-z0-9_\-]{0,30}"
            + _QUOTE
            + rb"[ \t]{0,3}[:=][ \t]{0,3}"
            + _QUOTE
            + rb"(?P<secret>[a-z0-9+/=_.\-]{16,500})(?![a-z0-9_])",
            is_placeholder,
            is_code_reference,
            is_path,
            is_low_entropy,
            lowered=True,
        )
        for keyword in _KEYWORDS
    ),
)
"""Every detector, most specific first: where two overlap the first one names the mask."""


def _starts_a_word(data: bytes, start: int) -> bool:
    if start == 0:
        return True
    before = data[start - 1]
    if before == 0x5C:  # a backslash: inside an escape
        return False
    if before not in _WORD_BYTES:
        return True
    # right after the JSON escape of a line break or a tab (\n, \r, \t)
    return before in b"nrt" and start >= 2 and data[start - 2] == 0x5C


def _hits(data: bytes) -> list[SecretHit]:
    lowered = data.lower()  # ASCII only: the same length and offsets
    hits: list[SecretHit] = []
    for detector in DETECTORS:
        haystack = lowered if detector.lowered else data
        group = "secret" if "secret" in detector.pattern.groupindex else 0
        for m in detector.pattern.finditer(haystack):
            start, end = m.span(group)
            if detector.word and not _starts_a_word(data, start):
                continue
            value = data[start:end].decode("utf-8", "replace")
            if not any(f(value) for f in detector.filters):
                hits.append(SecretHit(detector.name, start, end))
    order = {d.name: i for i, d in enumerate(DETECTORS)}
    kept: list[SecretHit] = []
    for hit in sorted(hits, key=lambda h: (order[h.detector], h.start)):
        if all(hit.end <= k.start or hit.start >= k.end for k in kept):
            kept.append(hit)
    return sorted(kept, key=lambda h: h.start)


def find_secrets(text: str) -> list[SecretHit]:
    """The secrets in ``text``, in order, overlaps resolved (the earlier detector wins);
    spans are offsets in ``text``."""
    data = text.encode("utf-8", "surrogatepass")
    hits = _hits(data)
    if not hits or len(data) == len(text):
        return hits
    chars = [len(data[: h.start].decode("utf-8", "surrogatepass")) for h in hits]
    return [
        SecretHit(h.detector, c, c + (h.end - h.start)) for h, c in zip(hits, chars, strict=True)
    ]


def mask_secrets(text: str) -> tuple[str, int]:
    """``text`` with each secret replaced by ``REDACTED:<detector>``, and how many."""
    data = text.encode("utf-8", "surrogatepass")
    hits = _hits(data)
    if not hits:
        return text, 0
    parts: list[bytes] = []
    at = 0
    for hit in hits:
        parts.append(data[at : hit.start])
        parts.append(f"{MASK_PREFIX}:{hit.detector}".encode())
        at = hit.end
    parts.append(data[at:])
    return b"".join(parts).decode("utf-8", "surrogatepass"), len(hits)
