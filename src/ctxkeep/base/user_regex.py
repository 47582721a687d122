"""Regular expressions a user hands ctxkeep (``--pin``, ``pin_patterns``), run on RE2.

A pattern with nested quantifiers (``(a+)+$``) makes a backtracking engine such as
Python's ``re`` take exponential time on a short text: 5,000 ``a`` and a ``!`` held
``compact`` for ever (issue 14). RE2 (``google-re2``) runs every pattern in time linear
in the text, and refuses the features that need backtracking (back-references,
look-around) with an error that is reported, never raised.

RE2's ``\\w``, ``\\d``, ``\\s`` and ``\\b`` know only ASCII; Python's know Unicode, and the
sessions ctxkeep reads are often Chinese. :func:`compile_user_regex` rewrites the classes
to their Unicode meaning (``\\w`` -> ``[\\p{L}\\p{N}_]``...) before RE2 compiles them, so
``\\w+`` matches ``错误信息`` as it does with ``re``. ``\\b`` stays ASCII (RE2 has no Unicode
word boundary): between two Chinese characters there is none, as there is none in Python
either between two letters; next to an ASCII word it behaves as in Python. The ``x`` flag
(verbose) is applied here, RE2 having none: whitespace and ``#`` comments outside a class
are removed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import re2

__all__ = ["UserRegex", "UserRegexError", "compile_user_regex"]

_WORD = r"\p{L}\p{N}\p{Mn}\p{Pc}"
_DIGIT = r"\p{Nd}"
_SPACE = r"\t-\r\x{1c}-\x{20}\x{85}\p{Z}"
_UNICODE_CLASSES = {"w": _WORD, "d": _DIGIT, "s": _SPACE}
"""Python's Unicode meaning of each class, as the inside of an RE2 character class."""


class UserRegexError(ValueError):
    """A user pattern RE2 cannot run; the message says why in a user's words."""


@dataclass(frozen=True, slots=True)
class UserRegex:
    """A compiled user pattern: ``search(text)`` is truthy when it matches;
    ``finditer(text)`` gives every match (offsets in characters, as ``re``'s)."""

    pattern: str
    _compiled: Any

    def search(self, text: str) -> bool:
        return self._compiled.search(text) is not None

    def finditer(self, text: str) -> Iterator[Any]:
        """The matches in ``text``, each with ``start()`` and ``end()``."""
        return iter(self._compiled.finditer(text))


def _class_escape(letter: str, inside: bool) -> str:
    """The Unicode rewrite of ``\\w`` ``\\W`` ``\\d`` ``\\D`` ``\\s`` ``\\S``."""
    body = _UNICODE_CLASSES[letter.lower()]
    if letter.islower():
        return body if inside else f"[{body}]"
    if inside:
        raise UserRegexError(
            f"\\{letter} inside [...] cannot run on RE2 with its Unicode meaning; "
            f"write [^...] instead"
        )
    return f"[^{body}]"


def _translate(pattern: str, verbose: bool) -> str:
    """``pattern`` with Python's Unicode classes spelt for RE2 (and ``x`` applied)."""
    out: list[str] = []
    inside = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        i += 1
        if c == "\\" and i < len(pattern):
            nxt = pattern[i]
            i += 1
            out.append(_class_escape(nxt, inside) if nxt in "wWdDsS" else c + nxt)
        elif inside:
            inside = c != "]"
            out.append(c)
        elif c == "[":
            inside = True
            out.append(c)
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):  # a ']' first in a class is a literal one
                out.append("\\]")
                i += 1
        elif verbose and c.isspace():
            continue
        elif verbose and c == "#":
            end = pattern.find("\n", i)
            i = len(pattern) if end == -1 else end + 1
        else:
            out.append(c)
    return "".join(out)


def compile_user_regex(pattern: str, flags: str = "") -> UserRegex:
    """Compile a user pattern for RE2 with ``flags`` (letters of ``imsx``).

    Raises :class:`UserRegexError` with a readable reason when RE2 cannot run it (a
    back-reference, a look-around, a syntax error). RE2 logs nothing to stderr.
    """
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = "i" not in flags
    options.never_nl = False
    options.dot_nl = "s" in flags
    options.posix_syntax = False
    prefix = "(?m)" if "m" in flags else ""
    translated = prefix + _translate(pattern, verbose="x" in flags)
    try:
        compiled = re2.compile(translated, options)
    except re2.error as exc:
        raise UserRegexError(_reason(exc)) from None
    return UserRegex(pattern, compiled)


def _reason(exc: Exception) -> str:
    text = exc.args[0] if exc.args else str(exc)
    said = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    if "invalid perl operator: (?<" in said or "(?=" in said or "(?!" in said:
        return f"look-around is not supported (patterns run on RE2, without backtracking): {said}"
    if "invalid escape sequence: \\1" in said or "\\g" in said:
        return f"back-references are not supported (patterns run on RE2): {said}"
    return said
