"""Hard identifiers (paths, versions, ports, env vars, URLs, hashes, issues, code symbols).

:func:`extract_identifiers` runs on summaries (small); :class:`SourceIndex` answers "does
this identifier appear in the sources?" for the much larger source text. The split is the
speed design: one compiled alternation finds candidates in the summary, named filters
(:mod:`ctxkeep.extract.filters`) drop false positives, and the source side is a joined
string searched with ``str.find`` (C speed, no regex over the sources).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ctxkeep.extract._text import is_cjk_char, words_of
from ctxkeep.extract.filters import IDENTIFIER_FILTERS

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
# Python's ``re`` pays per position *and per alternative*, so this is most of the speed.
_SLASH, _COLON, _DOT, _UNDERSCORE, _ENV, _TICK, _PAREN, _DIGIT = (1 << i for i in range(8))

# The identifier patterns in priority order (earlier wins at the same position).
_ALTERNATIVES: tuple[tuple[int, str], ...] = (
    # URL: scheme://... up to whitespace, quotes, brackets or CJK punctuation
    (_COLON, r"(?P<url>\b(?:https?|ftp|wss?|file|ssh|git)://[^\s<>\"'`\[\]{}，。、；！？（）]+)"),
    # Windows path C:\dir\file
    (_COLON, r"(?P<winpath>\b[A-Za-z]:\\[^\s\"'<>|*?]+)"),
    # slash path: /abs, ~/x, ./x, ../x, rel/ative; optional :line[:col]
    (
        _SLASH,
        rf"(?P<path>(?<![\w.@+~/:-])(?:(?:~|\.{{1,2}}|{_SEG})?(?:/{_SEG})+/?(?::\d+(?::\d+)?)?"
        # or one folder with its trailing slash: "tests/"
        rf"|\w{_SEG[:-1]}*/(?=[\s,;:)]|$)))",
    ),
    # bare file name with a known extension
    (
        _DOT,
        rf"(?P<file>(?<![\w./-])[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(?:{_EXT})"
        r"(?::\d+(?::\d+)?)?(?![\w-]))",
    ),
    # host:port (localhost, IPv4, host name); after paths: "file.py:12" is a line
    (
        _COLON,
        r"(?P<hostport>\b(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
        r"\.[A-Za-z]{2,})(?::\d{1,6})\b)",
    ),
    # port by keyword: port 8080, --port=8080, PORT=8080; or a bare :8080
    (_COLON | _DIGIT, r"(?P<port>(?<![\w-])(?:--)?(?i:port)[ =:]\s?\d{1,6}\b|(?<!\S):\d{2,5}\b)"),
    # issue / PR: #123, PR 45, PR #45, issue #7, GH-12, pull request 3
    (
        _DIGIT,
        r"(?P<issue>(?<![\w&#/])#\d{1,7}\b|\b(?:PR|MR|pr|Issue|issue|GH|gh|[Pp]ull request)"
        r"[ -]?#?\d{1,7}\b)",
    ),
    # version: v1.2, 1.2.3, ==2.13.0, Python 3.11 (two parts need a v, an operator
    # or a runtime name before them: "took 3.5 s" is no version)
    (
        _DOT,
        r"(?P<version>(?:==|>=|<=|~=|!=|@)(?P<vnum1>v?\d+(?:\.\d+)+" + _VSUFFIX + ")"
        r"|\b(?i:python|py|version|release|node|go|java|ubuntu|debian|cuda|gcc|clang|rust)"
        r"[ -]?(?P<vnum2>v?\d+(?:\.\d+)+" + _VSUFFIX + ")"
        r"|(?<![\w.])(?P<vnum3>(?:[vV]\d+(?:\.\d+)+|\d+\.\d+\.\d+(?:\.\d+)*)" + _VSUFFIX + ")"
        r")(?![\w.]*\w)",
    ),
    # environment variable: $HOME, ${VAR}, %APPDATA%, NAME= at a word start
    (
        _ENV,
        r"(?P<env>\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_][A-Za-z0-9_]*%"
        r"|\b[A-Z][A-Z0-9_]*[A-Z0-9](?==))",
    ),
    # hash: hex digest (7-64) or UUID
    (
        _DIGIT,
        r"(?P<hash>(?<![\w-])(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        r"|[0-9a-f]{7,64}|[0-9A-F]{7,64})(?![\w-]))",
    ),
    # code symbols: call(), dotted.name, snake_case, CONSTANT_NAME, `ticked`
    (_PAREN, r"(?P<call>\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\((?:\))?)"),
    (_DOT, r"(?P<dotted>\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b)"),
    (_UNDERSCORE, r"(?P<snake>\b_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b__\w+__\b)"),
    (_UNDERSCORE, r"(?P<constant>\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b)"),
    (_TICK, r"(?P<ticked>(?<=`)[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(\))?(?=`))"),
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


# A "." or ":" only counts inside a token (not ending a sentence), a "(" only after a name.
_TRIGGER = re.compile(r"[/\\_#$%=`\d]|[.:](?=\S)|(?<=\w)\(")
_HAS_DIGIT = re.compile(r"\d")


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
    if ":" in region:
        mask |= _COLON
    if "." in region:
        mask |= _DOT
    if "_" in region:
        mask |= _UNDERSCORE
    if "$" in region or "%" in region or "=" in region:
        mask |= _ENV
    if "`" in region:
        mask |= _TICK
    if "(" in region:
        mask |= _PAREN
    if "#" in region or _HAS_DIGIT.search(region) is not None:
        mask |= _DIGIT
    return mask


@functools.lru_cache(maxsize=256)
def _pattern_for(mask: int) -> re.Pattern[str]:
    """The alternation of the alternatives a region with these trigger classes can match."""
    return re.compile("|".join(source for needs, source in _ALTERNATIVES if needs & mask))


def _matches(text: str) -> Iterator[re.Match[str]]:
    for start, end in _regions(text):
        mask = _trigger_mask(text[start:end])
        if mask:
            yield from _pattern_for(mask).finditer(text, start, end)


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
        dropped_by: str | None = None
        probe = _strip_line_suffix(candidate) if kind == "path" else candidate
        for predicate in IDENTIFIER_FILTERS.get(group, IDENTIFIER_FILTERS.get(kind, ())):
            if predicate(probe):
                dropped_by = predicate.__name__
                break
        yield IdentifierCandidate(Identifier(candidate, kind, start, end), dropped_by)


def identifier_candidates(text: str) -> list[IdentifierCandidate]:
    """Every pattern match in ``text``, kept or dropped, with the filter that dropped it."""
    return list(_candidates(text))


def extract_identifiers(text: str) -> list[Identifier]:
    """The hard identifiers of ``text`` in order: paths, versions, ports, env vars, URLs,
    hashes, issue/PR numbers and code symbols, false positives filtered out."""
    return [c.identifier for c in _candidates(text) if c.dropped_by is None]


# --------------------------------------------------------------------------- source lookup

_LINE_SUFFIX = re.compile(r":\d+(?::\d+)?$")
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# Stop scanning a needle's occurrences after this many misses: it is clearly in the text,
# and a bounded loop keeps a pathological source from costing quadratic time.
_MAX_OCCURRENCES = 2_000


def _strip_line_suffix(path: str) -> str:
    return _LINE_SUFFIX.sub("", path)


@dataclass(frozen=True, slots=True)
class _Form:
    """One spelling to look for: the needle, whether case is ignored, and which edges of
    the occurrence must not touch a word character."""

    needle: str
    ignore_case: bool = False
    left_edge: bool = True
    right_edge: bool = True


def _occurs(haystack: str, form: _Form, start: int = 0) -> bool:
    needle = form.needle
    if not needle:
        return False
    check_left = form.left_edge and needle[0] in _WORD_CHARS
    check_right = form.right_edge and needle[-1] in _WORD_CHARS
    index = haystack.find(needle, start)
    seen = 0
    while index >= 0:
        end = index + len(needle)
        if (not check_left or index == 0 or haystack[index - 1] not in _WORD_CHARS) and (
            not check_right or end == len(haystack) or haystack[end] not in _WORD_CHARS
        ):
            return True
        seen += 1
        if seen >= _MAX_OCCURRENCES:
            return True
        index = haystack.find(needle, index + 1)
    return False


def _path_forms(text: str) -> Iterator[_Form]:
    path = _strip_line_suffix(text)
    windows = "\\" in path
    if windows:
        path = path.replace("\\", "/")
    for prefix in ("./", "~/"):
        if path.startswith(prefix):
            path = path[len(prefix) :]
    path = path.rstrip("/") or path
    yield _Form(path, ignore_case=windows)
    if windows:
        yield _Form(text.replace("/", "\\"), ignore_case=True)
    # an absolute path in the summary, a shorter relative one in the tool output: accept
    # any tail of at least two segments ("/work/main/src/a.py" -> "src/a.py")
    segments = [s for s in path.split("/") if s]
    for size in range(len(segments) - 1, 1, -1):
        yield _Form("/".join(segments[-size:]), ignore_case=windows)


def _lookup_forms(identifier: Identifier) -> Iterator[_Form]:
    text = identifier.text
    kind = identifier.kind
    yield _Form(text)  # as it stands, whatever its kind
    if kind == "path":
        yield from _path_forms(text)
    elif kind == "url":
        url = text.rstrip("/").lower()
        yield _Form(url, ignore_case=True)
        bare = url.split("://", 1)[-1]
        yield _Form(bare, ignore_case=True)
        if bare.startswith("www."):
            yield _Form(bare[4:], ignore_case=True)
    elif kind == "version":
        core = text.lstrip("vV")
        yield _Form(core, ignore_case=True)
    elif kind == "port":
        number = re.sub(r"\D*(\d+)\D*$", r"\1", text.rsplit(":", 1)[-1].rsplit(" ", 1)[-1])
        yield _Form(text.lower(), ignore_case=True)
        yield _Form(number)
    elif kind == "env":
        yield _Form(text.strip("${}%"))
    elif kind == "hash":
        # a short hash in the summary is a prefix of the full one in the sources
        yield _Form(text.lower(), ignore_case=True, right_edge=False)
    elif kind == "issue":
        number = re.sub(r"\D", "", text)
        for shape in ("#{}", "pr {}", "pr #{}", "pr-{}", "pull/{}", "issues/{}", "issue {}",
                      "issue #{}", "pull request {}", "pull request #{}", "gh-{}", "!{}",
                      "merge_requests/{}", "mr {}"):  # fmt: skip
            yield _Form(shape.format(number), ignore_case=True)
    else:
        yield _Form(text.split("(", 1)[0])


def _implies(longer: _Form, shorter: _Form) -> bool:
    """Whether every occurrence of ``longer`` holds an occurrence of ``shorter``.

    ``shorter`` sits inside ``longer`` (in ``shorter``'s case mode) where its own edge
    checks are met by ``longer``'s characters, or by ``longer``'s edge checks where the
    two share an end. Only ASCII needles are compared, where lower-casing keeps offsets.
    """
    if longer == shorter or not (longer.needle.isascii() and shorter.needle.isascii()):
        return False
    if longer.ignore_case and not shorter.ignore_case:
        return False
    outer, inner = longer.needle, shorter.needle
    if shorter.ignore_case:
        outer, inner = outer.lower(), inner.lower()
    if not inner:
        return False
    check_left = shorter.left_edge and inner[0] in _WORD_CHARS
    check_right = shorter.right_edge and inner[-1] in _WORD_CHARS
    offset = outer.find(inner)
    while offset >= 0:
        end = offset + len(inner)
        left_ok = not check_left or (
            outer[offset - 1] not in _WORD_CHARS if offset > 0 else longer.left_edge
        )
        right_ok = not check_right or (
            outer[end] not in _WORD_CHARS if end < len(outer) else longer.right_edge
        )
        if left_ok and right_ok:
            return True
        offset = outer.find(inner, offset + 1)
    return False


def _minimal_forms(forms: list[_Form]) -> list[_Form]:
    """``forms`` without those another one implies (:func:`_implies`), first kept.

    Any spelling found settles the lookup, so a spelling that cannot occur without a
    shorter one occurring is only a second scan of the sources: ``parse()`` beside
    ``parse``, ``src/a.py:12`` beside ``src/a.py``, every longer tail of a path beside its
    two-segment tail. An absent ``parse()`` costs a scan to the end of the sources even
    where ``parse`` is found at once (26k-event log: see benchmarks/audit_speed.py).
    """
    unique = list(dict.fromkeys(forms))
    return [
        form
        for i, form in enumerate(unique)
        if not any(
            _implies(form, other) and not (_implies(other, form) and j > i)
            for j, other in enumerate(unique)
            if j != i
        )
    ]


def _lookup_core(identifier: Identifier) -> tuple[str, bool]:
    """A substring that every spelling from :func:`_lookup_forms` contains (and whether
    to compare it lower-cased): the last path segment, an issue or port number, the
    longest part of a symbol, ...; empty when there is none."""
    text = identifier.text
    kind = identifier.kind
    if kind == "path":
        path = _strip_line_suffix(text).replace("\\", "/").rstrip("/")
        windows = "\\" in text
        base = path.rsplit("/", 1)[-1]
        return (base.lower() if windows else base), windows
    if kind in ("url", "hash"):
        return text.lower().rstrip("/").split("://", 1)[-1].removeprefix("www."), True
    if kind == "version":
        return text.lstrip("vV").lower(), True
    if kind in ("port", "issue"):
        digits = re.findall(r"\d+", text)
        return (digits[-1] if digits else ""), False
    if kind == "env":
        return text.strip("${}%"), False
    parts = text.split("(", 1)[0].split(".")
    return max(parts, key=len), False


class _Haystack:
    """Texts joined once, and their lower-case copy made when first asked for."""

    __slots__ = ("_lower", "text")

    def __init__(self, texts: list[str]) -> None:
        # NUL never occurs in text and stops a match from spanning two sources
        self.text = "\x00".join(texts)
        self._lower: str | None = None

    def of(self, ignore_case: bool) -> str:
        if not ignore_case:
            return self.text
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower


class SourceIndex:
    """The sources of one summary, joined once, searched with ``str.find``.

    Built from the texts a summary was written from (its shadowed events, tool results
    included, plus the previous summary). :meth:`contains` normalises per kind: a path
    given relative in the summary and absolute in a tool result (or the reverse), a
    trailing ``:line``, ``./`` or ``~/``; URL case, scheme and ``www.``; a ``v`` before a
    version; ``$``/``${}`` around an env var; a short hash against the full one; the many
    spellings of an issue number; the ``()`` after a call. A dotted symbol is also found
    when each of its parts is (``Parser.parse`` from ``class Parser`` and ``def parse``).

    ``texts`` are searched first, then ``bulk`` (the answer is the same in any order; a
    lookup ends sooner when the likely texts come first). ``bulk`` is joined in two:
    its ASCII texts apart from the others, as one Chinese sentence would otherwise
    widen megabytes of ASCII tool output to two bytes a character, which makes joining
    twice and lower-casing ten times as slow (26k-event benchmark log: lower-casing the
    sources 184 ms -> see benchmarks/audit_speed.py).
    """

    __slots__ = ("_haystacks",)

    def __init__(self, texts: Iterable[str], bulk: Iterable[str] = ()) -> None:
        narrow: list[str] = []
        wide: list[str] = []
        for text in bulk:
            (narrow if text.isascii() else wide).append(text)
        groups = (list(texts), narrow, wide)
        self._haystacks = tuple(_Haystack(group) for group in groups if group)

    def contains(self, identifier: Identifier) -> bool:
        """Whether ``identifier`` appears in the sources (see the class docstring)."""
        core, ignore_case = _lookup_core(identifier)
        forms: list[_Form] | None = None
        for haystack in self._haystacks:
            first = haystack.of(ignore_case).find(core) if core else 0
            if first < 0:
                # every spelling contains the core: one scan settles an absent identifier
                continue
            if forms is None:
                forms = _minimal_forms(list(_lookup_forms(identifier)))
            for form in forms:
                needle = form.needle.lower() if form.ignore_case else form.needle
                # No spelling can start before the core's first occurrence less its own
                # length: the scan resumes there instead of rereading megabytes of sources.
                start = max(0, first - len(needle)) if form.ignore_case == ignore_case else 0
                if _occurs(
                    haystack.of(form.ignore_case),
                    _Form(needle, False, form.left_edge, form.right_edge),
                    start,
                ):
                    return True
        if identifier.kind == "symbol":
            parts = identifier.text.split("(", 1)[0].split(".")
            if len(parts) >= 2:
                return all(
                    any(_occurs(h.text, _Form(part)) for h in self._haystacks)
                    for part in parts
                    if part
                )
        return False
