"""Pins: messages kept verbatim, never scored, because of what they contain.

Built-in pins, reported in this order when several match:

- ``trace``: stack traces (Python, JavaScript, Java, Go) and ``SomethingError:`` lines;
- ``url``: URLs;
- ``error``: error codes (``HTTP 429``, ``status: 503``, ``0x8007000E``, errno names such
  as ``ENOENT``; errno names are case-sensitive even under ``pin_flags="i"``, because
  "enoent" in prose is not an error code);
- ``constraint``: a standing instruction at the start of a line or sentence (you must, do
  not, never, always, Important:, Note:, 必须, 不要, 禁止, 务必, 注意);
- ``path``: file paths (``src/a/b.py``, ``./x.c``, ``C:\\dir\\f.txt``, ``/etc/hosts``,
  bare ``parser.py``): the broadest, so last.

User patterns are appended and reported as ``pinned:user``. ``pin_flags`` (letters of
``imsx``) apply to user patterns; built-in pins take only its ``i`` (``x`` would change
what they mean), and never for errno names.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ctxkeep.base.user_regex import UserRegex, UserRegexError, compile_user_regex
from ctxkeep.scorers.lexical import chunk_ranges, join_offsets

__all__ = [
    "BUILTIN_PINS",
    "PROSE_PINS",
    "PinSet",
    "compile_pins",
    "parse_flags",
]

_EXTENSIONS = (
    "py|pyi|ipynb|js|mjs|cjs|jsx|ts|tsx|go|rs|java|kt|kts|scala|c|h|cc|cpp|cxx|hpp|cs|rb|"
    "php|swift|m|mm|sh|bash|zsh|ps1|toml|yaml|yml|json|jsonl|xml|ini|cfg|conf|env|md|rst|"
    "txt|sql|html|css|scss|vue|svelte|lock|gradle|proto|tf|dockerfile|mk|cmake"
)
_SEG = r"[A-Za-z0-9_.@+-]"
# Absolute paths without an extension are pinned only under well-known roots: a bare
# "/a/b" is as often a unit (km/h), a C comment (/break/continue) or a register (/U/UL).
_ROOTS = (
    "usr|etc|home|tmp|var|opt|Users|proc|dev|mnt|srv|root|lib|lib64|bin|sbin|app|"
    "workspace|work|data|private|Library|System|Applications|nix|run"
)

_PATH = (
    rf"(?<![\w/.-])(?:[A-Za-z]:\\|~/|\.{{1,2}}/|/)?(?:{_SEG}+/)+[A-Za-z0-9_@+-]{_SEG}*"
    rf"\.[A-Za-z][A-Za-z0-9]{{0,9}}\b"
    rf"|(?<![\w/.:-])/(?:{_ROOTS})/{_SEG}[A-Za-z0-9_.@+/-]*"
    r"|\b[A-Za-z]:\\(?:[^\\\s\"'<>|]+\\)*[^\\\s\"'<>|]+"
)
_FILE_NAME = rf"\b[A-Za-z0-9_-]+\.(?:{_EXTENSIONS})\b(?![.(])"
_TRACE = (
    r"Traceback \(most recent call last\)"
    r"|^\s*File \"[^\"\n]+\", line \d+"
    r"|^\s+at (?:async )?[\w$.<>\[\]/-]+ \([^()\n]+:\d+(?::\d+)?\)"
    r"|^\s+at [^\s()]+:\d+:\d+"
    r"|^\s+at [\w$.]+\([\w$]+\.(?:java|kt|scala):\d+\)"
    r"|Exception in thread \""
    r"|^goroutine \d+ \[[^\]\n]+\]:"
    r"|^panic: "
    r"|\b[A-Z][A-Za-z]*(?:Error|Exception): "
)
_ERRNO_NAMES = (
    "E2BIG|EACCES|EADDRINUSE|EADDRNOTAVAIL|EAFNOSUPPORT|EAGAIN|EALREADY|EBADF|EBADMSG|"
    "EBUSY|ECANCELED|ECHILD|ECONNABORTED|ECONNREFUSED|ECONNRESET|EDEADLK|EDESTADDRREQ|"
    "EDQUOT|EEXIST|EFAULT|EFBIG|EHOSTDOWN|EHOSTUNREACH|EILSEQ|EINPROGRESS|EINTR|EINVAL|"
    "EIO|EISCONN|EISDIR|ELOOP|EMFILE|EMLINK|EMSGSIZE|ENAMETOOLONG|ENETDOWN|ENETRESET|"
    "ENETUNREACH|ENFILE|ENOBUFS|ENODATA|ENODEV|ENOENT|ENOEXEC|ENOLCK|ENOMEM|ENOSPC|ENOSYS|"
    "ENOTCONN|ENOTDIR|ENOTEMPTY|ENOTSOCK|ENOTSUP|ENOTTY|ENXIO|EOVERFLOW|EPERM|EPIPE|"
    "EPROTO|ERANGE|EROFS|ESPIPE|ESRCH|ESTALE|ETIMEDOUT|ETXTBSY|EWOULDBLOCK|EXDEV"
)
_ERROR = (
    r"\bHTTP(?:/\d(?:\.\d)?)?\s+[45]\d\d\b"
    r"|\bstatus(?:[ _]?code)?\s*[:=]?\s*[45]\d\d\b"
    r"|\b0x[0-9A-Fa-f]{4,16}\b"
)
_ERRNO = rf"(?-i:\b(?:{_ERRNO_NAMES})\b)"
_URL = r"\b(?:https?|ftp|wss?|file)://[^\s<>\"'`]+"
_LINE_START = r"(?:^[ \t]*(?:[-*•>][ \t]+|\d+[.)][ \t]+)?|(?<=[.!?;])[ \t]+|(?<=[。！？；]))"
_CONSTRAINT = (
    rf"{_LINE_START}(?:"
    r"[Yy]ou must|YOU MUST|[Dd]o not|DO NOT|[Dd]on't|DON'T|[Nn]ever|NEVER|[Aa]lways|ALWAYS"
    r"|[Ii]mportant:|IMPORTANT:|[Nn]ote:|NOTE:"
    r"|必须|不要|禁止|务必|注意)"
)

# Each pin: its name, its pattern, and what every match must contain: substrings of the
# lowercased text (so the test holds under any flags) or a fast regex on the text. The
# full pattern runs only on messages that pass, which keeps pinning near memchr speed on
# prose (stdlib re costs ~1 MB/s for each pattern that starts with \b or a lookbehind).
_CONSTRAINT_WORDS = ("must", "do not", "don't", "never", "always", "important:", "note:")
_CONSTRAINT_WORDS_ZH = ("必须", "不要", "禁止", "务必", "注意")
_TRACE_WORDS = ("traceback", 'file "', "    at ", "\tat ", "exception", "goroutine", "panic: ")

# The most specific pins first, paths (the broadest: traces and URLs hold paths) last.
BUILTIN_PINS: tuple[tuple[str, str, tuple[str, ...] | str, int], ...] = (
    ("trace", _TRACE, (*_TRACE_WORDS, "error: "), 64),
    ("url", _URL, ("://",), 8),
    ("error", _ERROR, ("http", "status", "0x"), 0),
    ("error", _ERRNO, "E[A-Z2]", 0),
    ("constraint", _CONSTRAINT, _CONSTRAINT_WORDS + _CONSTRAINT_WORDS_ZH, 64),
    ("path", _PATH, ("/", "\\"), 128),
    ("path", _FILE_NAME, rf"\.(?i:{_EXTENSIONS})\b", 128),
)
"""(name, pattern, trigger, lookback) of each built-in pin, in the order they are reported.

The lookback is how far before its trigger a match may begin (an exception's class name,
a trace line's indentation, a path's first directory): the regex skips the text before
that, which is most of its cost on long messages."""

_IN_RUNS = frozenset({_PATH, _URL})
"""The patterns whose every match holds one of the pin's trigger substrings and no
whitespace: they are searched only in the whitespace-free runs that hold a trigger
(:func:`search_in_runs`)."""

PROSE_PINS = frozenset({"url", "constraint", "path"})
"""Pins looked for only in what a message says in words, not in its tool traffic."""

_FLAG_LETTERS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


def parse_flags(letters: str) -> tuple[re.RegexFlag, list[str]]:
    """``pin_flags`` letters -> re flags, and a problem for each unknown letter."""
    flags = re.RegexFlag(0)
    problems: list[str] = []
    for letter in letters:
        if letter in _FLAG_LETTERS:
            flags |= _FLAG_LETTERS[letter]
        else:
            problems.append(f"pin_flags: unknown flag {letter!r} (known: imsx)")
    return flags, problems


@dataclass(frozen=True, slots=True)
class _Pin:
    name: str
    pattern: re.Pattern[str]
    substrings: tuple[str, ...]
    trigger: re.Pattern[str] | None
    lookback: int
    trigger_head: str
    """The character every match of ``trigger`` starts with ('' when not one literal)."""
    in_runs: bool
    """Searched only in the whitespace-free runs that hold a trigger (:data:`_IN_RUNS`)."""

    def search(self, text: str, start: int) -> bool:
        """Whether the pattern matches in ``text`` at or after ``start``."""
        if self.in_runs:
            return search_in_runs(self.pattern, text, start, self.substrings)
        return self.pattern.search(text, start) is not None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """``pattern.finditer(text)``, each search started at the next trigger less the
        pin's lookback (every match starts at most that far before a trigger: what
        :meth:`PinSet.pins_of` relies on too). The trace and constraint patterns tried at
        every position of every text were half of shrinking pinned messages to their
        spans under a hard budget."""
        if self.in_runs:
            yield from finditer_in_runs(self.pattern, text, self.substrings)
            return
        lowered = text.lower()
        if len(lowered) != len(text):  # lower() moved the offsets ("İ" -> "i̇")
            yield from self.pattern.finditer(text)
            return
        position = 0
        while True:
            found = [lowered.find(sub, position) for sub in self.substrings]
            if self.trigger is not None:
                trigger = self.trigger.search(text, position)
                found.append(trigger.start() if trigger is not None else -1)
            ahead = [at for at in found if at != -1]
            if not ahead:
                return
            match = self.pattern.search(text, max(position, min(ahead) - self.lookback))
            if match is None:
                return
            yield match
            position = match.end()


_NON_SPACE_RUN = re.compile(r"\S*")


def search_in_runs(pattern: re.Pattern[str], text: str, start: int, marks: Sequence[str]) -> bool:
    """``pattern.search(text, start)`` for a pattern whose every match holds one of
    ``marks`` and no whitespace: searched only in the whitespace-free runs of ``text``
    that hold a mark, each bounded at the whitespace around it.

    The path pattern searched from the first "/" to the end of a message tries every
    position after it (its lookbehind leaves ``re`` no quick skip), and backtracks
    through each word: on messages of 200-2,000 characters of real text that was ~130 us
    a message. The bounds change nothing: a match cannot cross whitespace, and the
    window's end, at whitespace or the end of the text, reads to ``\\b`` and the
    lookarounds as the whitespace does.
    """
    return any(pattern.search(text, a, b) is not None for a, b in _runs(text, start, marks))


def finditer_in_runs(
    pattern: re.Pattern[str], text: str, marks: Sequence[str]
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern like those of :func:`search_in_runs`,
    run by run: shrinking a pinned message to its spans looked for every match of every
    pin, and the path pattern over whole texts was a third of a hard-budget compaction
    of 10k real messages."""
    for run_start, run_end in _runs(text, 0, marks):
        yield from pattern.finditer(text, run_start, run_end)


def _runs(text: str, start: int, marks: Sequence[str]) -> Iterator[tuple[int, int]]:
    """The whitespace-free runs of ``text`` that hold one of ``marks`` at or after
    ``start``, in order (a run begins no earlier than ``start``)."""
    done = start
    while True:
        found = [at for at in (text.find(mark, done) for mark in marks) if at != -1]
        if not found:
            return
        at = min(found)
        run_start = at
        while run_start > done and not text[run_start - 1].isspace():
            run_start -= 1
        run = _NON_SPACE_RUN.match(text, at)
        run_end = run.end() if run is not None else at + 1  # \S* always matches
        yield run_start, run_end
        done = run_end


def trigger_head(trigger: str) -> str:
    """The literal character every match of a trigger regex starts with (``E[A-Z2]`` ->
    ``E``, ``\\.(?i:py|js)`` -> ``.``), or '' when it starts otherwise. (Built-in triggers
    have no top-level ``|``; a head followed by a quantifier is not required.)"""
    if trigger[:1].isalnum():
        head, rest = trigger[0], trigger[1:]
    elif trigger[:1] == "\\" and trigger[1:2] and trigger[1] in ".-/:":
        head, rest = trigger[1], trigger[2:]
    else:
        return ""
    return "" if rest[:1] in ("?", "*", "{") or "|" in rest.split("(", 1)[0] else head


class _Corpus:
    """Many texts joined by NUL, searched at once: one C-speed scan per trigger instead of
    one Python call per message and trigger (10,000 messages: ~10 ms instead of ~200 ms)."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.starts = join_offsets(map(len, texts))
        self.joined = "\x00".join(texts)
        self.lowered = self.joined.lower()
        self.lowered_starts = self.starts
        if len(self.lowered) != len(self.joined):
            # lower() lengthened some text ("İ" -> "i̇"): the lowered copy needs its own map.
            lowered = [t.lower() for t in texts]
            self.lowered = "\x00".join(lowered)
            self.lowered_starts = join_offsets(map(len, lowered))
        self._lowered_seen: dict[str, bool] = {}
        self._joined_seen: dict[str, bool] = {}

    def lacks_a_character_of(self, sub: str) -> bool:
        """Whether some character of ``sub`` occurs nowhere in the lowered texts, so that
        ``sub`` cannot either. One ``str.find`` of a single character is memchr (~20 GB/s,
        a tenth of a substring scan): a trigger such as ``"\\tat "`` or ``"0x"`` costs
        nothing in text without tabs or zeros."""
        return self._lacks_any(self.lowered, self._lowered_seen, sub)

    def lacks(self, ch: str) -> bool:
        """Whether the character ``ch`` occurs nowhere in the texts as they are."""
        return self._lacks_any(self.joined, self._joined_seen, ch)

    @staticmethod
    def _lacks_any(text: str, seen: dict[str, bool], chars: str) -> bool:
        # seen: character -> absent, each looked for once (memchr) per corpus.
        for ch in chars:
            absent = seen.get(ch)
            if absent is None:
                absent = seen[ch] = text.find(ch) == -1
            if absent:
                return True
        return False

    def _owner(self, pos: int, starts: list[int]) -> int:
        return bisect.bisect_right(starts, pos) - 1

    def hits(self, pin: _Pin) -> dict[int, int]:
        """The texts that hold a trigger of ``pin``: index -> where in the text the first
        trigger is (0 when the lowered text's offsets differ from the original's)."""
        found: dict[int, int] = {}
        if pin.trigger is not None and not self.lacks(pin.trigger_head):
            match = pin.trigger.search(self.joined)
            while match is not None:
                i = self._owner(match.start(), self.starts)
                found[i] = match.start() - self.starts[i]
                match = pin.trigger.search(self.joined, self.starts[i + 1])
        exact = self.lowered_starts is self.starts
        for sub in pin.substrings:
            if self.lacks_a_character_of(sub):
                continue
            pos = self.lowered.find(sub)
            while pos != -1:
                i = self._owner(pos, self.lowered_starts)
                at = pos - self.starts[i] if exact else 0
                if at < found.get(i, at + 1):
                    found[i] = at
                pos = self.lowered.find(sub, self.lowered_starts[i + 1])
        return found


@dataclass(frozen=True, slots=True)
class PinSet:
    """The compiled pins; :meth:`pin_of` names the first that matches a text."""

    builtin: tuple[_Pin, ...]
    user: tuple[UserRegex, ...]

    def pin_of(self, text: str) -> str | None:
        """``path`` / ``trace`` / ``error`` / ``url`` / ``constraint`` / ``user``, or None."""
        return self.pins_of([text])[0]

    def pins_of(self, texts: Sequence[str], prose: Sequence[str] | None = None) -> list[str | None]:
        """:meth:`pin_of` for many texts at once (the fast way).

        ``prose``, when given, is what each message says in words ("" for tool traffic).
        The pins that stand for an instruction or a place to work (:data:`PROSE_PINS`:
        paths, URLs, constraints) are looked for only there; the pins that stand for a
        failure (traces, error codes) and user patterns in the whole text. In an agent
        session nearly every tool call and result names a file: pinning them all kept 85
        of 150 messages of a generated session and left nothing to compact (ctxkeep bench
        quality: 2% saved at every budget).
        """
        result: list[str | None] = [None] * len(texts)
        if self.builtin and texts:
            for first, end in chunk_ranges(list(map(len, texts))):
                whole = _Corpus(texts[first:end])
                words = whole if prose is None else _Corpus(prose[first:end])
                for pin in self.builtin:
                    source = prose if prose is not None and pin.name in PROSE_PINS else texts
                    corpus = words if source is prose else whole
                    for k, at in corpus.hits(pin).items():
                        i = first + k
                        start = max(0, at - pin.lookback)
                        if result[i] is None and pin.search(source[i], start):
                            result[i] = pin.name
        if self.user:
            for i, text in enumerate(texts):
                if result[i] is None and any(p.search(text) for p in self.user):
                    result[i] = "user"
        return result

    def hit_offsets(self, text: str, *, prose: bool) -> list[tuple[int, int, str]]:
        """(start, end, pin name) of every match in ``text``: what triggered a pin, for
        keeping those spans when the message must shrink. Prose pins (paths, URLs,
        constraints) count only when ``prose``."""
        hits: list[tuple[int, int, str]] = []
        for pin in self.builtin:
            if pin.name in PROSE_PINS and not prose:
                continue
            hits.extend((m.start(), m.end(), pin.name) for m in pin.finditer(text))
        for pattern in self.user:
            hits.extend((m.start(), m.end(), "user") for m in pattern.finditer(text))
        hits.sort()
        return hits


@functools.cache
def _builtin_pins(flags: re.RegexFlag) -> tuple[_Pin, ...]:
    """The built-in pins compiled once per flag set: re's own cache is shared with every
    other pattern of the process and was seen to miss (12 ms a call at 10k messages)."""
    return tuple(
        _Pin(
            name,
            re.compile(pattern, flags),
            trigger if isinstance(trigger, tuple) else (),
            re.compile(trigger) if isinstance(trigger, str) else None,
            lookback,
            trigger_head(trigger) if isinstance(trigger, str) else "",
            pattern in _IN_RUNS,
        )
        for name, pattern, trigger, lookback in BUILTIN_PINS
    )


def compile_pins(
    user_patterns: Sequence[object], *, enabled: bool = True, flags: str = "i"
) -> tuple[PinSet, list[str]]:
    """Compile the built-in pins and ``user_patterns``; bad patterns become problems.

    Built-in pins take only the ``i`` of ``flags`` (``x`` would change what they mean);
    user patterns take all of them. User patterns run on RE2, in time linear in the text
    (``ctxkeep.base.user_regex``: ``(a+)+$`` hung ``re``); one RE2 cannot run is a problem.
    """
    re_flags, problems = parse_flags(flags if isinstance(flags, str) else "")
    if not enabled:
        return PinSet((), ()), problems
    builtin = _builtin_pins((re_flags & re.IGNORECASE) | re.MULTILINE)
    letters = "".join(c for c in (flags if isinstance(flags, str) else "") if c in "imsx")
    user: list[UserRegex] = []
    for i, pattern in enumerate(user_patterns):
        if not isinstance(pattern, str):
            problems.append(f"pin_patterns[{i}]: not a string")
            continue
        try:
            user.append(compile_user_regex(pattern, letters))
        except UserRegexError as exc:
            problems.append(f"pin_patterns[{i}] {pattern!r}: {exc}")
    return PinSet(builtin, tuple(user)), problems
