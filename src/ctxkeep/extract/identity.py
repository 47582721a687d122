"""One identity for an item: when a summary's spelling and a log's spelling are the same thing.

A summary restates what the log said in its own spelling: ``parse_header/2`` for Elixir's
``defp parse_header(``, ``1.21.3`` for ``go1.21.3``, ``total_added_lines`` for the Go
field ``TotalAddedLines``, ``src/a.py`` for ``/work/app/src/a.py``. Every rule that looks
an item up, and the compactor's pins, use the one normalisation of this module
(docs/judgement-items.md lists every rule of it with its case):

- :func:`spellings`: the concrete strings under which an item may stand in raw text, each
  with the neighbours it must not touch (:class:`Spelling`);
- :func:`canonical`: one key per item, equal for two spellings of the same thing;
- :func:`same_item`: whether two spellings name the same item (keys equal, or a shortened
  module alias, or a path and its tail);
- :func:`mentions`: whether a text holds an item in any spelling;
- :class:`SourceIndex`: the same question asked of megabytes of sources, answered with
  ``str.find`` on a joined copy (no regex over the sources), plus the structural rules
  that need the sources: a qualified symbol's parts near each other or its qualifier
  declared, an elided path's pieces in one text, a redaction placeholder standing for a
  part of the item.

A qualified name stays qualified: ``Map.fetch/2`` is not found because ``fetch`` occurs.
"""

from __future__ import annotations

import functools
import re
import string
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from ctxkeep.extract._text import words_of

__all__ = [
    "REDACTION_PLACEHOLDERS",
    "KindedItem",
    "SourceIndex",
    "Spelling",
    "SymbolName",
    "canonical",
    "mentions",
    "parse_symbol",
    "same_item",
    "spellings",
    "split_words",
]

# Neighbour classes a spelling's occurrence must not touch.
WORD = frozenset(string.ascii_letters + string.digits + "_")
ALNUM = frozenset(string.ascii_letters + string.digits)
# A version's left neighbour may be a letter ("go1.21.3", "v1.2", "py3.11") but not a
# digit or a dot ("11.21.3" does not hold "1.21.3").
NUMBER = frozenset(string.digits + ".")
NOTHING: frozenset[str] = frozenset()

# What log writers put where they hid text (Entire, the source of the real logs in
# benchmarks/, writes REDACTED for secrets, high-entropy names and home paths).
REDACTION_PLACEHOLDERS = ("REDACTED", "[REDACTED]", "<redacted>", "[redacted]")
# A bare placeholder (nothing visible around it) can hide a long token only: redactors
# hide secrets and random-looking names, never a short word.
_HIDEABLE_LENGTH = 16
# An elision in a summary's path or quote: "/var/folders/wl/.../T/x".
_ELISION = re.compile(r"\.\.\.|\u2026")

# Receivers that name an instance, not a namespace: ``self.parse`` is the method ``parse``.
_RECEIVERS = frozenset({"self", "this", "cls", "@"})
# How close a qualifier and its member must stand in one source text to count as one
# name when no spelling joins them: Go's ``func (s *Strategy) initialize(``, an
# ``alias Foo.Bar``/``from x import y`` line, "``parse`` of ``Parser``" in prose.
_NEAR = 120
# Declarations that open a namespace: the member's definition after one, in the same text,
# is the qualified name (``class Parser:`` ... ``def parse(``).
_DECLARATION_WORDS = (
    "class|struct|type|interface|trait|enum|module|defmodule|namespace|object|impl|record|"
    "protocol|extension|package"
)
_DECLARES = re.compile(rf"\b(?:{_DECLARATION_WORDS})\s+(?:[\w.]+\.)?$")
# Bound on occurrences scanned per needle: past this many the answer is clear, and a
# pathological source cannot cost quadratic time.
_MAX_OCCURRENCES = 2_000


# --------------------------------------------------------------------------- spellings


@dataclass(frozen=True, slots=True)
class Spelling:
    """One string to look for: the needle, whether case is ignored (the needle is then
    lower-case), and the characters its occurrence must not touch on each side.

    An edge is only checked when the needle's own edge character is in that class: a
    needle that starts with ``/`` or ``.`` starts at a boundary by itself.
    """

    needle: str
    ignore_case: bool = False
    left: frozenset[str] = WORD
    right: frozenset[str] = WORD


_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_words(name: str) -> tuple[str, ...]:
    """The lower-case words of a name in any case style.

    ``TotalAddedLines``, ``totalAddedLines``, ``total_added_lines``, ``total-added-lines``,
    ``TOTAL_ADDED_LINES`` and "total added lines" all give ``("total", "added", "lines")``;
    ``HTTPServer`` gives ``("http", "server")``.
    """
    return tuple(w.lower() for w in _WORDS.findall(name))


@dataclass(frozen=True, slots=True)
class SymbolName:
    """A code symbol taken apart: qualifier parts then the name, and its arity if given."""

    parts: tuple[str, ...]
    arity: int | None = None

    @property
    def name(self) -> str:
        return self.parts[-1]

    @property
    def qualified(self) -> bool:
        return len(self.parts) > 1


_ARITY = re.compile(r"/(\d{1,2})$")
_SEPARATORS = re.compile(r"::|->|#|\.|(?<=\w):(?=\w)")
_QUOTES = "`'\"\u2018\u2019\u201c\u201d"


def parse_symbol(text: str) -> SymbolName:
    """``Map.fetch/2`` -> (Map, fetch) arity 2; ``Class#method()``, ``Class::method``,
    ``mod:fun/1`` (Erlang), ``obj->m`` likewise; ``self.x`` / ``this.x`` lose the receiver."""
    text = text.strip(_QUOTES + " ").removeprefix("&")
    arity: int | None = None
    match = _ARITY.search(text)
    if match is not None:
        arity = int(match.group(1))
        text = text[: match.start()]
    text = text.split("(", 1)[0]
    parts = [p for p in _SEPARATORS.split(text) if p]
    while len(parts) > 1 and parts[0] in _RECEIVERS:
        parts.pop(0)
    return SymbolName(tuple(parts) or (text,), arity)


def _strip_line_suffix(path: str) -> str:
    return re.sub(r":\d+(?:[:-]\d+)?$", "", path)


def _path_core(text: str) -> tuple[str, bool]:
    """A path as ``a/b/c`` (line suffix, ``./``, ``~/``, trailing ``/`` gone; ``\\`` as
    ``/``) and whether it was a Windows path (compared ignoring case)."""
    path = _strip_line_suffix(text.strip(_QUOTES))
    windows = "\\" in path
    if windows:
        path = path.replace("\\", "/")
    for prefix in ("./", "~/"):
        if path.startswith(prefix):
            path = path[len(prefix) :]
    return (path.rstrip("/") or path), windows


def _path_spellings(text: str) -> Iterator[Spelling]:
    path, windows = _path_core(text)
    yield Spelling(path, ignore_case=windows)
    if windows:
        yield Spelling(text.replace("/", "\\").lower(), ignore_case=True)
    # an absolute path in the summary, a shorter relative one in the tool output: any
    # tail of at least two segments ("/work/main/src/a.py" -> "src/a.py")
    segments = [s for s in path.split("/") if s]
    for size in range(len(segments) - 1, 1, -1):
        tail = "/".join(segments[-size:])
        yield Spelling(tail.lower() if windows else tail, ignore_case=windows)


# Verbs that begin function names: spelt as prose, such a name is an action ("compute and
# render session lanes"), not the name (``renderSessionLanes``).
_NAME_VERBS = words_of(
    "get set is has can should add remove delete create make build render compute parse "
    "load save write read update handle check init initialize run process fetch find "
    "validate convert format print extract apply ensure resolve send receive open close "
    "start stop reset clear list show hide emit register call invoke test try new to from "
    "with do use count collect merge split join sort filter map reduce copy move wrap "
    "unwrap encode decode serialize deserialize marshal unmarshal generate install"
)


def _word_spellings(words: tuple[str, ...]) -> Iterator[Spelling]:
    """The case styles of a name of two or more words (all compared lower-cased); the
    words spaced as prose only for a noun phrase (``total_added_lines`` is "total added
    lines"; ``renderSessionLanes`` is not "render session lanes")."""
    yield Spelling("".join(words), ignore_case=True)  # camelCase, PascalCase, flat
    yield Spelling("_".join(words), ignore_case=True)  # snake_case, CONSTANT_CASE
    yield Spelling("-".join(words), ignore_case=True, left=ALNUM, right=ALNUM)  # kebab
    if words[0] not in _NAME_VERBS:
        yield Spelling(" ".join(words), ignore_case=True, left=ALNUM, right=ALNUM)  # prose


def _symbol_spellings(text: str) -> Iterator[Spelling]:
    symbol = parse_symbol(text)
    if not symbol.qualified:
        name = symbol.name
        yield Spelling(name)
        words = split_words(name)
        # only when the words spell the whole name (nothing the split drops, like "$")
        if len(words) >= 2 and "".join(words) == name.replace("_", "").replace("-", "").lower():
            yield from _word_spellings(words)
        return
    parts = symbol.parts
    for separator in (".", "#", "::", "->"):
        yield Spelling(separator.join(parts))
    yield Spelling(".".join(parts).lower(), ignore_case=True)
    if len(parts) == 2:
        yield Spelling(":".join(parts))  # Erlang's mod:fun


def _issue_spellings(text: str) -> Iterator[Spelling]:
    number = re.sub(r"\D", "", text)
    for shape in ("#{}", "pr {}", "pr #{}", "pr-{}", "pull/{}", "issues/{}", "issue {}",
                  "issue #{}", "pull request {}", "pull request #{}", "gh-{}", "!{}",
                  "merge_requests/{}", "mr {}"):  # fmt: skip
        yield Spelling(shape.format(number), ignore_case=True)


def as_written(text: str, kind: str) -> Spelling:
    """The first of :func:`spellings`: the item as it stands."""
    if kind in _NOT_SYMBOLS:
        return Spelling(text.strip(_QUOTES + " "))
    return next(_symbol_spellings(text))


_NOT_SYMBOLS = frozenset(("path", "url", "version", "port", "env", "hash", "issue"))


def spellings(text: str, kind: str) -> list[Spelling]:
    """Every spelling under which the item ``text`` of ``kind`` may stand in raw text.

    ``kind`` is one of the identifier kinds (path, version, port, env, url, hash, issue,
    symbol). The first spelling is the item as it stands (a symbol without its call
    parentheses, arity or receiver).
    """
    out = [as_written(text, kind)]
    if kind == "path":
        out.extend(_path_spellings(text))
    elif kind == "url":
        url = text.rstrip("/").lower()
        bare = url.split("://", 1)[-1]
        out += [Spelling(url, True), Spelling(bare, True)]
        if bare.startswith("www."):
            out.append(Spelling(bare[4:], True))
    elif kind == "version":
        out.append(Spelling(_version_core(text), True, left=NUMBER, right=WORD))
    elif kind == "port":
        number = re.sub(r"\D*(\d+)\D*$", r"\1", text.rsplit(":", 1)[-1].rsplit(" ", 1)[-1])
        out += [Spelling(text.lower(), True), Spelling(number)]
    elif kind == "env":
        out.append(Spelling(text.strip("${}%")))
    elif kind == "hash":
        # a short hash in the summary is a prefix of the full one in the sources
        out.append(Spelling(text.lower(), True, right=NOTHING))
    elif kind == "issue":
        out.extend(_issue_spellings(text))
    else:
        out = list(_symbol_spellings(text))
    return out


_VERSION_PREFIX = re.compile(r"^(?:v|go|py|python|node|nodejs|ruby|java|rust)[ -]?", re.I)


def _version_core(text: str) -> str:
    return _VERSION_PREFIX.sub("", text.strip(_QUOTES)).lower()


def canonical(text: str, kind: str) -> str:
    """One key per item: two spellings of the same item of ``kind`` get the same key.

    Symbols: the parts' words snake-cased and dot-joined, receiver and arity dropped
    (``Parser#parse()`` and ``parser.parse`` -> ``parser.parse``); paths: ``/``-joined,
    line suffix, ``./`` and ``~/`` dropped; versions: the number without ``v``/``go``/...;
    URLs: lower-case without scheme, ``www.`` or a trailing ``/``; env vars: the bare
    name; issues and ports: the number; hashes: lower-case.
    """
    if kind == "symbol":
        symbol = parse_symbol(text)
        return ".".join("_".join(split_words(p)) or p for p in symbol.parts)
    if kind == "path":
        path, windows = _path_core(text)
        return path.lower() if windows else path
    if kind == "version":
        return _version_core(text)
    if kind == "url":
        return text.lower().rstrip("/").split("://", 1)[-1].removeprefix("www.")
    if kind == "env":
        return text.strip("${}%")
    if kind in ("issue", "port"):
        digits = re.findall(r"\d+", text)
        return digits[-1] if digits else text
    return text.strip(_QUOTES).lower()


def same_item(a: str, b: str, kind: str) -> bool:
    """Whether ``a`` and ``b`` name the same item of ``kind``.

    Equal keys (:func:`canonical`); or, for symbols, one a shortened alias of the other
    (``Foo.Bar.Baz.fun`` and ``Baz.fun``: the shorter keeps a qualifier); or, for paths,
    one a tail of at least two segments of the other (``src/a.py`` and
    ``/work/app/src/a.py``).
    """
    key_a, key_b = canonical(a, kind), canonical(b, kind)
    if key_a == key_b:
        return True
    if kind == "symbol":
        short, long = sorted((key_a.split("."), key_b.split(".")), key=len)
        return len(short) >= 2 and long[-len(short) :] == short
    if kind == "path":
        short, long = sorted((key_a.split("/"), key_b.split("/")), key=len)
        short = [s for s in short if s]
        return len(short) >= 2 and long[-len(short) :] == short
    return False


def mentions(text: str, item: str, kind: str) -> bool:
    """Whether ``text`` holds ``item`` (of ``kind``) in any spelling: what a pin asks of a
    message, with the same rules as an audit's source lookup."""
    return SourceIndex([text]).contains(item, kind)


# --------------------------------------------------------------------------- the lookup


def _occurs(haystack: str, spelling: Spelling, start: int = 0, end: int | None = None) -> int:
    """The first index >= ``start`` where ``spelling`` occurs within its edges, or -1.

    ``haystack`` is already lower-cased when the spelling ignores case.
    """
    needle = spelling.needle
    if not needle:
        return -1
    check_left = needle[0] in spelling.left
    check_right = needle[-1] in spelling.right
    length = len(haystack) if end is None else end
    index = haystack.find(needle, start, length)
    seen = 0
    while index >= 0:
        stop = index + len(needle)
        if (not check_left or index == 0 or haystack[index - 1] not in spelling.left) and (
            not check_right or stop == len(haystack) or haystack[stop] not in spelling.right
        ):
            return index
        seen += 1
        if seen >= _MAX_OCCURRENCES:
            return index
        index = haystack.find(needle, index + 1, length)
    return -1


@dataclass(frozen=True, slots=True)
class _Pass:
    """One pass of a lookup: spellings of one case mode, and a substring all of them
    contain (the core: one scan for it settles an absent item); empty when none is."""

    forms: tuple[Spelling, ...]
    core: str
    ignore_case: bool


_CHUNK = re.compile(r"[^\W_]+|[^\w\s]+|_+")


def _common_core(needles: list[str]) -> str:
    """The longest of the shortest needle's runs of letters and digits (or the needle
    itself) that every needle contains; empty when none does."""
    shortest = min(needles, key=len)
    runs = sorted({shortest, *_CHUNK.findall(shortest)}, key=len, reverse=True)
    return next((run for run in runs if all(run in n for n in needles)), "")


@functools.lru_cache(maxsize=4096)
def _lookup_plan(item: str, kind: str) -> tuple[_Pass, ...]:
    """The passes of a lookup, worked out once per item (a summary repeats its items,
    and each compaction's summary repeats the one before): the case-sensitive spellings
    first, then those that ignore case.

    The exact spellings first: an item is mostly found as written, and the sources are
    lowered only when it is not (200 MB benchmark log: lowering every compaction's
    sources for its snake_case names cost a third of the audit; see
    benchmarks/audit_speed.py). Spellings that another implies (``parse()`` beside
    ``parse``) are not weeded out: working that out cost more than the scans it saved
    (26k-event log: 0.23-0.37 -> 0.17-0.23 s for its 4,736 lookups; 200 MB log:
    0.14-0.16 -> 0.10-0.12 s).
    """
    forms = list(dict.fromkeys(spellings(item, kind)))
    passes = []
    for ignore_case in (False, True):
        group = [f for f in forms if f.ignore_case is ignore_case]
        if group:
            core = _common_core([f.needle for f in group])
            passes.append(_Pass(tuple(group), core, ignore_case))
    return tuple(passes)


class _Haystack:
    """Texts joined once, and their lower-case copy made when first asked for."""

    __slots__ = ("_lower", "_nuls", "text")

    def __init__(self, texts: list[str]) -> None:
        # NUL never occurs in text and stops a match from spanning two sources
        self.text = "\x00".join(texts)
        self._lower: str | None = None
        self._nuls: list[int] | None = None

    def of(self, ignore_case: bool) -> str:
        if not ignore_case:
            return self.text
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower

    def text_around(self, index: int) -> tuple[int, int]:
        """The bounds of the one source text that holds ``index``: the NULs around it,
        found by bisection (a claim's figure is looked up at every occurrence, and
        scanning for the NULs rescanned a long tool result each time)."""
        if self._nuls is None:
            self._nuls = [m.start() for m in re.finditer("\x00", self.text)]
        after = bisect_left(self._nuls, index)  # the NULs before ``index``
        start = self._nuls[after - 1] + 1 if after else 0
        end = self._nuls[after] if after < len(self._nuls) else len(self.text)
        return start, end


class KindedItem(Protocol):
    """Anything with the text and the kind of an item (an ``Identifier``)."""

    @property
    def text(self) -> str: ...

    @property
    def kind(self) -> str: ...


class SourceIndex:
    """The sources of one summary, joined once, searched with ``str.find``.

    Built from the texts a summary was written from (its shadowed events, tool results
    included, plus the previous summary). :meth:`contains` tries every spelling of
    :func:`spellings`; then, for a qualified symbol, its parts near each other or its
    qualifier declared with the member after it (:meth:`_qualified_nearby`); for a path
    or quote elided with ``...``, its pieces in one text; for an item that holds a
    redaction placeholder, the visible parts around it.

    ``texts`` are searched first, then ``bulk`` (the answer is the same in any order; a
    lookup ends sooner when the likely texts come first). ``bulk`` is joined in two:
    its ASCII texts apart from the others, as one Chinese sentence would otherwise
    widen megabytes of ASCII tool output to two bytes a character, which makes joining
    twice and lower-casing ten times as slow (26k-event benchmark log: lower-casing the
    sources 184 ms -> see benchmarks/audit_speed.py).

    ``answers`` keeps what a caller worked out from these sources, by its question: one
    summary asks some questions more than once (a count's near figures for each count
    of the same noun).
    """

    __slots__ = ("_haystacks", "_redactions", "answers")

    def __init__(self, texts: Iterable[str], bulk: Iterable[str] = ()) -> None:
        narrow: list[str] = []
        wide: list[str] = []
        for text in bulk:
            (narrow if text.isascii() else wide).append(text)
        groups = (list(texts), narrow, wide)
        self._haystacks = tuple(_Haystack(group) for group in groups if group)
        self._redactions: list[tuple[str, str]] | None = None
        self.answers: dict[tuple[object, ...], bool] = {}

    # ---------------------------------------------------------------- public questions

    def contains(self, item: str | KindedItem, kind: str | None = None) -> bool:
        """Whether ``item`` (its text and ``kind``, or an
        :class:`~ctxkeep.extract.Identifier`) appears in the sources in any spelling."""
        if not isinstance(item, str):
            kind = item.kind
            item = item.text
        if kind is None:
            raise TypeError("contains() needs the item's kind")
        pieces = _pieces(item)
        if pieces != [item]:
            return self._pieces_in_one_text(pieces)
        if self._spelled(item, kind):
            return True
        if kind == "symbol":
            symbol = parse_symbol(item)
            return symbol.qualified and (
                self._alias_shortened(symbol) or self._qualified_nearby(symbol)
            )
        return False

    def holds(self, needle: str, *, ignore_case: bool = False) -> bool:
        """Whether the plain text ``needle`` occurs (no edges), in one source text."""
        if ignore_case:
            needle = needle.lower()
        return any(h.of(ignore_case).find(needle) >= 0 for h in self._haystacks)

    def find_all(
        self,
        needle: str,
        *,
        ignore_case: bool = False,
        edges: frozenset[str] = WORD,
        right: frozenset[str] | None = None,
    ) -> Iterator[tuple[str, int, int, int]]:
        """Each occurrence of ``needle`` not touching ``edges`` (on the right ``right``
        when given): (the haystack, the index, and the bounds of the one source text
        holding it), at most a bounded number."""
        spelling = Spelling(
            needle.lower() if ignore_case else needle,
            ignore_case,
            edges,
            edges if right is None else right,
        )
        for haystack in self._haystacks:
            text = haystack.of(ignore_case)
            index = _occurs(text, spelling)
            seen = 0
            while index >= 0 and seen < _MAX_OCCURRENCES:
                start, end = haystack.text_around(index)
                yield text, index, start, end
                seen += 1
                index = _occurs(text, spelling, index + 1)

    def could_hide(self, item: str) -> bool:
        """Whether a redaction placeholder in the sources may stand where ``item`` stood:
        a bare placeholder and a long item, or the visible text around a placeholder
        matching the item's start and end."""
        for left, right in self.redactions():
            if not left and not right:
                if len(item) >= _HIDEABLE_LENGTH and " " not in item:
                    return True
            elif item.startswith(left) and item.endswith(right):
                return True
        return False

    def redactions(self) -> list[tuple[str, str]]:
        """The text glued to each redaction placeholder in the sources (left, right)."""
        if self._redactions is None:
            found: set[tuple[str, str]] = set()
            for placeholder in REDACTION_PLACEHOLDERS:
                for text, index, start, end in self.find_all(placeholder, edges=NOTHING):
                    found.add(_glued(text, index, index + len(placeholder), start, end))
            self._redactions = sorted(found)
        return self._redactions

    # ---------------------------------------------------------------- the rules

    def _spelled(self, item: str, kind: str) -> bool:
        # An item is mostly found as written: that spelling is looked for before the
        # others are worked out (26k-event log: 4,736 lookups).
        written = as_written(item, kind)
        if any(_occurs(haystack.text, written) >= 0 for haystack in self._haystacks):
            return True
        return any(self._scan(plan) for plan in _lookup_plan(item, kind))

    def _scan(self, plan: _Pass) -> bool:
        for haystack in self._haystacks:
            text = haystack.of(plan.ignore_case)
            first = text.find(plan.core) if plan.core else 0
            if first < 0:
                continue  # every spelling contains the core: one scan settles it
            for form in plan.forms:
                # No spelling can start before the core's first occurrence less its own
                # length: the scan resumes there instead of rereading megabytes of sources.
                if _occurs(text, form, max(0, first - len(form.needle))) >= 0:
                    return True
        return False

    def _alias_shortened(self, symbol: SymbolName) -> bool:
        """``Foo.Bar.Baz.fun`` where the sources say ``Baz.fun`` and name ``Foo.Bar.Baz``
        (an Elixir ``alias``, a Python ``from Foo.Bar import Baz``)."""
        parts = symbol.parts
        for cut in range(1, len(parts) - 1):
            short = ".".join(parts[cut:])
            module = ".".join(parts[: cut + 1])
            if self._spelled(short, "symbol") and self.holds(module):
                return True
        return False

    def _qualified_nearby(self, symbol: SymbolName) -> bool:
        """The qualifier's last part and the member in one source text, either within
        :data:`_NEAR` characters of each other, or the member after a declaration of the
        qualifier (``class Parser:`` ... ``def parse(``; ``defmodule App.Parser do`` ...
        ``def parse(``)."""
        qualifier, member = symbol.parts[-2], Spelling(symbol.name)
        for text, index, start, end in self.find_all(qualifier):
            stop = index + len(qualifier)
            if _occurs(text, member, max(start, index - _NEAR), min(end, stop + _NEAR)) >= 0:
                return True
            declared = _DECLARES.search(text, max(start, index - 40), index) is not None
            if declared and _occurs(text, member, stop, end) >= 0:
                return True
        return False

    def _pieces_in_one_text(self, pieces: list[str]) -> bool:
        """Every piece of an elided or redacted item, in order, in one source text."""
        longest = max(pieces, key=len)
        for text, _, start, end in self.find_all(longest, edges=NOTHING):
            position = start
            for piece in pieces:
                found = text.find(piece, position, end)
                if found < 0:
                    break
                position = found + len(piece)
            else:
                return True
        return False


def _pieces(item: str) -> list[str]:
    """The visible pieces of an item elided with ``...`` or holding a redaction
    placeholder (each of three characters or more, in order), else ``[item]``."""
    text = item
    for placeholder in REDACTION_PLACEHOLDERS:
        text = text.replace(placeholder, "\u2026")
    if "\u2026" not in text and "..." not in text:
        return [item]
    pieces = [p.strip("/\\ ") for p in _ELISION.split(text)]
    kept = [p for p in pieces if len(p) >= 3]
    return kept if kept else [item]


_GLUE_STOP = frozenset(" \t\r\n\x00\"'`<>()[]{},;=")


def _glued(text: str, begin: int, stop: int, start: int, end: int) -> tuple[str, str]:
    """The non-space text glued to the placeholder at ``text[begin:stop]`` on each side."""
    left = begin
    while left > start and text[left - 1] not in _GLUE_STOP:
        left -= 1
    right = stop
    while right < end and text[right] not in _GLUE_STOP:
        right += 1
    return text[left:begin], text[stop:right]
