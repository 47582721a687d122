"""What a chosen option chose: "let's go with option 1" means the agent's option 1.

An answer that picks one of the agent's options names the option, not its content: the
summary that carries the choice says "the user chose to add the methods to the Agent
interface", or just describes that design, and never says "option 1". So the choice is
judged by the option's title as the agent wrote it in its last message before the
answer: a numbered item (``1. **Add to Agent interface**: …``), a heading or a label
(``Option B — keep the cache per user``, ``方案二：…``).
"""

from __future__ import annotations

import re

__all__ = ["chosen_labels", "option_title"]

_NUMBERS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "first": "1",
            "second": "2", "third": "3", "fourth": "4", "一": "1", "二": "2", "三": "3",
            "四": "4", "五": "5"}  # fmt: skip
_CHOSEN = re.compile(
    r"\b(?:option|approach|variant|alternative|choice|proposal|plan)\s*#?\s*"
    r"(?P<label>\d{1,2}|[a-d]|one|two|three|four|five)\b"
    r"|\bthe\s+(?P<ordinal>first|second|third|fourth)\s+(?:one|option|approach)\b"
    r"|方案\s*(?P<zh>[一二三四五1-9a-dA-D])",
    re.IGNORECASE,
)


def _label(match: re.Match[str]) -> str:
    raw = (match.group("label") or match.group("ordinal") or match.group("zh") or "").lower()
    return _NUMBERS.get(raw, raw)


def chosen_labels(text: str) -> list[str]:
    """The option labels a user's answer names, normalised ("option two" -> ``2``)."""
    return list(dict.fromkeys(_label(m) for m in _CHOSEN.finditer(text)))


_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_TITLE_END = re.compile(r"\s[—–-]\s|[:：]\s|[:：]$|\.\s|。")


def _option_heads(label: str, *, numbered: bool) -> re.Pattern[str]:
    """Lines that start option ``label``: labelled ("Option 2", "**Approach B**", "方案二")
    or, with ``numbered``, a plain list item ("2. …")."""
    words = {k for k, v in _NUMBERS.items() if v == label and k.isascii()} | {label}
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    zh = "".join(k for k, v in _NUMBERS.items() if v == label and not k.isascii())
    heads = [
        rf"(?:option|approach|variant|alternative|choice|scenario|proposal|style|design)"
        rf"\s*#?\s*(?:{alternatives})\b",
        rf"方案\s*[{zh or label}{label}]",
    ]
    if numbered:
        heads.append(rf"(?:{alternatives})[.)]\s")
    return re.compile(rf"^[ \t>#*-]*(?:\*\*)?(?:{'|'.join(heads)})", re.IGNORECASE | re.MULTILINE)


def _title(text: str, head: re.Match[str]) -> str | None:
    line_end = text.find("\n", head.end())
    end = len(text) if line_end == -1 else line_end
    line = text[head.start() : end]
    if line.rstrip().endswith(("?", "？")):
        return None  # a question to the user is no option
    bold = _BOLD.search(line)
    if bold is not None:
        title = next(g for g in bold.groups() if g is not None)
    else:
        rest = text[head.end() : end].lstrip(" \t:：.)-—–*")
        cut = _TITLE_END.search(rest)
        title = rest if cut is None else rest[: cut.start()]
    title = title.strip(" \t*:：")
    return title[:160] or None


def option_title(agent_texts: list[str], label: str) -> str | None:
    """The title of option ``label`` in the agent's recent messages (latest first), or None.

    An answer answers the latest message: there a labelled option ("Option 3",
    "Scenario 3", "方案三") or else a plain numbered item ("3. …"); in older messages a
    labelled one only. Never a question ("3. For >3 sessions, should we …?" is the agent
    asking, not offering). The title is the option's bold text if it has some, else its
    line up to the first colon, dash or full stop (at most 160 characters): what a
    summary would keep.
    """
    for age, text in enumerate(agent_texts):
        for numbered in (False, True) if age == 0 else (False,):
            heads = list(_option_heads(label, numbered=numbered).finditer(text))
            for head in reversed(heads):  # the last list of options is the one answered
                title = _title(text, head)
                if title is not None:
                    return title
    return None
