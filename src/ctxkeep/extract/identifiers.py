"""Hard identifiers (paths, versions, ports, env vars, URLs, hashes, issues, code symbols).

:func:`extract_identifiers` runs on summaries (small); :class:`SourceIndex`
(:mod:`ctxkeep.extract.identity`) answers "does this identifier appear in the sources?"
for the much larger source text. The split is the speed design: one compiled alternation
finds candidates in the summary, named filters (:mod:`ctxkeep.extract.filters`) drop
false positives, and the source side is a joined string searched with ``str.find`` (C
speed, no regex over the sources).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ctxkeep.extract._text import is_cjk_char, words_of
from ctxkeep.extract.filters import IDENTIFIER_CONTEXT_FILTERS, IDENTIFIER_FILTERS
from ctxkeep.extract.identity import SourceIndex

__all__ = [
    "Identifier",
    "IdentifierCandidate",
    "SourceIndex",
    "extract_identifiers",
    "identifier_candidates",
]

IDENTIFIER_KINDS = ("path", "version", "port", "env", "url", "hash", "issue", "symbol")


@dataclass(frozen=True, slots=True)
class Identifier:
    """A hard identifier exactly as it stands in the text, with its kind and offsets."""

    text: str
    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class IdentifierCandidate:
    """A pattern match and the name of the filter that dropped it (None: it was kept)."""

    identifier: Identifier
    dropped_by: str | None


_FILE_EXTENSIONS = words_of(
    "py pyi pyx ipynb js mjs cjs jsx ts tsx vue svelte go rs c h cc cpp cxx hpp hh cs java kt "
    "kts scala swift m mm rb php pl lua r jl dart ex exs erl hs ml clj sh bash zsh fish ps1 "
    "bat cmd sql json jsonl ndjson yaml yml toml ini cfg conf env lock md rst txt csv tsv xml "
    "html htm css scss sass less svg png jpg jpeg gif webp pdf log out diff patch proto "
    "graphql gql tf hcl dockerfile mk cmake gradle wasm so dylib dll exe whl gz tgz zip tar "
    "bz2 xz zst db sqlite parquet pkl pt onnx bin"
)
_EXT = "|".join(sorted(_FILE_EXTENSIONS, key=len, reverse=True))
_SEG = r"[\w.@+~-]+"
_VSUFFIX = r"(?:[-.+]?(?:a|b|rc|alpha|beta|dev|post|pre)\.?\d*)?"

# Trigger classes: every match of an alternative holds a character of one of its classes
# (a kept hash has a digit). A region only runs the alternatives its characters allow:
# Python's ``re`` pays per position *and per alternative*, so this is most of the speed
# (the 26k-event log's audit: 5.13 G instructions with every alternative tried in every
# region, 3.97 G so).
# An alternative may name more than one: a match holds a character of each (a version
# has a dot and a digit), so a region without one cannot match it and is not tried.
# A dot or a colon counts only inside a token, where every match that needs one has it
# ("a.b", "::", "://", ":8080"), not ending one ("done.", "Turn 3:"); a port needs a colon
# or the word "port", an issue a "#" or one of its words, a constant a capital letter.
(_SLASH, _COLON, _DOT, _UNDERSCORE, _ENV, _TICK, _PAREN, _DIGIT, _HASH_SIGN, _BACKSLASH,
 _CAPITAL, _PORT_WORD, _ISSUE_WORD) = (1 << i for i in range(13))  # fmt: skip

# The identifier patterns in priority order (earlier wins at the same position).
_ALTERNATIVES: tuple[tuple[tuple[int, ...], str], ...] = (
    # URL: scheme://... up to whitespace, quotes, brackets or CJK punctuation
    (
        (_COLON, _SLASH),
        r"(?P<url>\b(?:https?|ftp|wss?|file|ssh|git)://[^\s<>\"'`\[\]{}，。、；！？（）]+)",
    ),
    # a function with its arity (Elixir, Erlang): parse_header/2, Map.fetch/2, lists:map/2,
    # valid?/1; before paths, which would take "parse_header/2" for a folder and a file
    (
        (_SLASH, _DIGIT),
        r"(?P<arity>(?<![\w./:-])(?:[A-Z]\w*\.)*(?:[a-z]\w*:)?[a-z_]\w*[?!]?/\d{1,2}"
        r"(?![\w/.-]))",
    ),
    # Windows path C:\dir\file
    ((_COLON, _BACKSLASH), r"(?P<winpath>\b[A-Za-z]:\\[^\s\"'<>|*?]+)"),
    # slash path: /abs, ~/x, ./x, ../x, rel/ative; optional :line[:col]
    (
        (_SLASH,),
        rf"(?P<path>(?<![\w.@+~/:-])(?:(?:~|\.{{1,2}}|{_SEG})?(?:/{_SEG})+/?(?::\d+(?:[:-]\d+)?)?"
        # or one folder with its trailing slash: "tests/"
        rf"|\w{_SEG[:-1]}*/(?=[\s,;:)]|$)))",
    ),
    # bare file name with a known extension
    (
        (_DOT,),
        rf"(?P<file>(?<![\w./-])[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(?:{_EXT})"
        r"(?::\d+(?:[:-]\d+)?)?(?![\w-]))",
    ),
    # host:port (localhost, IPv4, host name); after paths: "file.py:12" is a line
    (
        (_COLON, _DIGIT),
        r"(?P<hostport>\b(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
        r"\.[A-Za-z]{2,})(?::\d{1,6})\b)",
    ),
    # port by keyword: port 8080, --port=8080, PORT=8080; or a bare :8080
    (
        (_DIGIT, _COLON | _PORT_WORD),
        r"(?P<port>(?<![\w-])(?:--)?(?i:port)[ =:]\s?\d{1,6}\b|(?<!\S):\d{2,5}\b)",
    ),
    # issue / PR: #123, PR 45, PR #45, issue #7, GH-12, pull request 3
    (
        (_DIGIT, _HASH_SIGN | _ISSUE_WORD),
        r"(?P<issue>(?<![\w&#/])#\d{1,7}\b|\b(?:PR|MR|pr|Issue|issue|GH|gh|[Pp]ull request)"
        r"[ -]?#?\d{1,7}\b)",
    ),
    # version: v1.2, 1.2.3, ==2.13.0, Python 3.11 (two parts need a v, an operator
    # or a runtime name before them: "took 3.5 s" is no version)
    (
        (_DOT, _DIGIT),
        r"(?P<version>(?:==|>=|<=|~=|!=|@)(?P<vnum1>v?\d+(?:\.\d+)+" + _VSUFFIX + ")"
        r"|\b(?i:python|py|version|release|node|go|java|ubuntu|debian|cuda|gcc|clang|rust)"
        r"[ -]?(?P<vnum2>v?\d+(?:\.\d+)+" + _VSUFFIX + ")"
        r"|(?<![\w.])(?P<vnum3>(?:[vV]\d+(?:\.\d+)+|\d+\.\d+\.\d+(?:\.\d+)*)" + _VSUFFIX + ")"
        r")(?![\w.]*\w)",
    ),
    # environment variable: $HOME, ${VAR}, %APPDATA%, NAME= at a word start
    (
        (_ENV,),
        r"(?P<env>\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_][A-Za-z0-9_]*%"
        r"|\b[A-Z][A-Z0-9_]*[A-Z0-9](?==))",
    ),
    # hash: hex digest (7-64) or UUID
    (
        (_DIGIT | _HASH_SIGN,),
        r"(?P<hash>(?<![\w-])(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        r"|[0-9a-f]{7,64}|[0-9A-F]{7,64})(?![\w-]))",
    ),
    # code symbols: call(), dotted.name, snake_case, CONSTANT_NAME, `ticked`
    ((_PAREN,), r"(?P<call>\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\((?:\))?)"),
    ((_DOT,), r"(?P<dotted>\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b)"),
    # Class::method (C++, Rust, PHP, Ruby constants), Class#method (Ruby, Java docs)
    ((_COLON | _HASH_SIGN,), r"(?P<scoped>\b[A-Za-z_]\w*(?:(?:::|#(?=[a-z_]))[A-Za-z_]\w*)+\b)"),
    ((_UNDERSCORE,), r"(?P<snake>\b_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b__\w+__\b)"),
    ((_UNDERSCORE, _CAPITAL), r"(?P<constant>\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b)"),
    ((_TICK,), r"(?P<ticked>(?<=`)[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(\))?(?=`))"),
)

_GROUP_KIND = {
    "url": "url",
    "winpath": "path",
    "path": "path",
    "file": "path",
    "hostport": "port",
    "port": "port",
    "issue": "issue",
    "version": "version",
    "env": "env",
    "hash": "hash",
    "arity": "symbol",
    "scoped": "symbol",
    "call": "symbol",
    "dotted": "symbol",
    "snake": "symbol",
    "constant": "symbol",
    "ticked": "symbol",
}
_TRAILING_PUNCT = ".,;:!?'\"`)]}>，。；：！？、）"


def _trim(text: str, start: int, end: int, kind: str) -> tuple[int, int]:
    """Drop sentence punctuation glued to the end, and Chinese glued to a path's edges."""
    if kind not in ("path", "url"):
        return start, end
    while end > start and text[end - 1] in _TRAILING_PUNCT:
        # keep a closing bracket that closes one opened inside (URL with parentheses)
        if text[end - 1] == ")" and text.count("(", start, end) >= text.count(")", start, end):
            break
        end -= 1
    if kind == "path" and end > start:
        # "修改src/a.py文件": Chinese prose touching an ASCII path on either side
        if is_cjk_char(text[start]):
            s = start
            while s < end and is_cjk_char(text[s]):
                s += 1
            if s < end and text[s].isascii() and text[s] != "/":
                start = s
        if is_cjk_char(text[end - 1]):
            e = end
            while e > start and is_cjk_char(text[e - 1]):
                e -= 1
            if e > start and text[e - 1].isascii() and text[e - 1] != "/":
                end = e
        while end > start and text[end - 1] in _TRAILING_PUNCT:
            end -= 1
    return start, end


# A "." or ":" only counts inside a token (not ending a sentence), a "(" only after a name;
# _INSIDE_TOKEN finds them so in a region, for the classes.
_TRIGGER = re.compile(r"[/\\_#$%=`\d]|[.:](?=\S)|(?<=\w)\(")
_HAS_DIGIT = re.compile(r"\d")
_INSIDE_TOKEN = re.compile(r"[.:](?=\S)")
_ISSUE_WORDS = ("pr", "mr", "issue", "gh", "pull")  # the issue pattern's words, lowered


def _token_start(text: str, index: int) -> int:
    return max(text.rfind(" ", 0, index), text.rfind("\n", 0, index)) + 1


def _regions(text: str) -> Iterator[tuple[int, int]]:
    """Spans worth matching: each whitespace token holding a trigger character, with the
    token before it (for "PR 45", "port 8080", "Python 3.11"). Prose between them is
    skipped at C speed."""
    search = _TRIGGER.search
    position = 0
    last_end = 0
    length = len(text)
    while True:
        hit = search(text, position)
        if hit is None:
            return
        start = _token_start(text, hit.start())
        if start > 0:
            start = max(_token_start(text, start - 1), last_end)
        space = text.find(" ", hit.end())
        newline = text.find("\n", hit.end())
        end = min(space if space >= 0 else length, newline if newline >= 0 else length)
        yield start, end
        last_end = position = end


def _trigger_mask(region: str) -> int:
    mask = 0
    if "/" in region:
        mask |= _SLASH
    if "\\" in region:
        mask |= _BACKSLASH
    if "." in region or ":" in region:
        inside = _INSIDE_TOKEN.findall(region)
        if ":" in inside:
            mask |= _COLON
        if "." in inside:
            mask |= _DOT
    if "_" in region:
        mask |= _UNDERSCORE
    if "$" in region or "%" in region or "=" in region:
        mask |= _ENV
    if "`" in region:
        mask |= _TICK
    if "(" in region:
        mask |= _PAREN
    if "#" in region:
        mask |= _HASH_SIGN
    lowered = region.lower()
    if lowered != region:
        mask |= _CAPITAL
    if _HAS_DIGIT.search(region) is not None:
        mask |= _DIGIT
        if "port" in lowered:
            mask |= _PORT_WORD
        if any(word in lowered for word in _ISSUE_WORDS):
            mask |= _ISSUE_WORD
    return mask


@functools.cache
def _compiled() -> tuple[tuple[tuple[int, ...], re.Pattern[str]], ...]:
    """Each alternative compiled once, with its trigger classes, in priority order.

    Not one alternation per set of trigger classes: compiling those (up to 256, 62 on
    the nine real logs, 5-9 ms each in ``re``'s Python parser; these 17 take 9 ms in
    all) took the nine real logs' audit from 4.15 to 4.74 G instructions
    (benchmarks/instructions.py). Nor one alternation of all 17, the plain version:
    every region then tries every alternative, and the 200 MB benchmark log's audit
    took 12% longer (benchmarks/audit_speed.py).
    """
    return tuple((needs, re.compile(source)) for needs, source in _ALTERNATIVES)


@functools.cache
def _patterns_for(mask: int) -> tuple[re.Pattern[str], ...]:
    """The alternatives a region with these trigger classes can match."""
    return tuple(pattern for needs, pattern in _compiled() if all(n & mask for n in needs))


def _matches(text: str) -> Iterator[re.Match[str]]:
    """What the alternation of :data:`_ALTERNATIVES` finds in ``text``, region by region,
    trying only the alternatives a region's trigger classes allow."""
    for start, end in _regions(text):
        mask = _trigger_mask(text[start:end])
        if mask:
            yield from _leftmost_first(_patterns_for(mask), text, start, end)


def _leftmost_first(
    patterns: tuple[re.Pattern[str], ...], text: str, start: int, end: int
) -> Iterator[re.Match[str]]:
    """The matches of ``patterns`` as their alternation finds them: the leftmost match,
    the earlier pattern at the same position, the scan going on from its end (no
    pattern matches the empty string).

    A pattern with no match from ``start`` has none further on; one whose match lies
    ahead of the scan keeps it until the scan passes its start (a search from any
    position up to there finds the same match: look-behinds see the whole text).
    """
    ahead = {i: m for i, p in enumerate(patterns) if (m := p.search(text, start, end))}
    while ahead:
        first = min(ahead, key=lambda i: (ahead[i].start(), i))
        yield ahead[first]
        position = ahead[first].end()
        for i, match in list(ahead.items()):
            if match.start() < position:
                following = patterns[i].search(text, position, end)
                if following is None:
                    del ahead[i]
                else:
                    ahead[i] = following


def _candidates(text: str) -> Iterator[IdentifierCandidate]:
    for match in _matches(text):
        group = match.lastgroup
        if group is None:  # pragma: no cover - every alternative is a named group
            continue
        kind = _GROUP_KIND[group]
        start, end = match.span()
        if group == "version":
            start, end = next(
                match.span(g) for g in ("vnum1", "vnum2", "vnum3") if match.start(g) >= 0
            )
        start, end = _trim(text, start, end, kind)
        if start >= end:
            continue
        candidate = text[start:end]
        probe = _strip_line_suffix(candidate) if kind == "path" else candidate
        yield IdentifierCandidate(
            Identifier(candidate, kind, start, end), _dropped_by(probe, group, kind, text, start)
        )


def _dropped_by(probe: str, group: str, kind: str, text: str, start: int) -> str | None:
    """The name of the first filter that drops the candidate, or None."""
    for predicate in IDENTIFIER_FILTERS.get(group, IDENTIFIER_FILTERS.get(kind, ())):
        if predicate(probe):
            return predicate.__name__
    for in_context in IDENTIFIER_CONTEXT_FILTERS.get(kind, ()):
        if in_context(probe, text, start):
            return in_context.__name__
    return None


def identifier_candidates(text: str) -> list[IdentifierCandidate]:
    """Every pattern match in ``text``, kept or dropped, with the filter that dropped it."""
    return list(_candidates(text))


def extract_identifiers(text: str) -> list[Identifier]:
    """The hard identifiers of ``text`` in order: paths, versions, ports, env vars, URLs,
    hashes, issue/PR numbers and code symbols, false positives filtered out."""
    return [c.identifier for c in _candidates(text) if c.dropped_by is None]


# --------------------------------------------------------------------------- source lookup

_LINE_SUFFIX = re.compile(r":\d+(?:[:-]\d+)?$")


def _strip_line_suffix(path: str) -> str:
    return _LINE_SUFFIX.sub("", path)
