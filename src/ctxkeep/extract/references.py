"""Back-references in a summary ("as mentioned above", "如上所述") that point at text the
summary may have replaced: the ghost-reference rule checks that what they point at is
still in context."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Reference", "find_references"]


@dataclass(frozen=True, slots=True)
class Reference:
    """A back-reference phrase exactly as it stands, with its offsets."""

    text: str
    start: int
    end: int


_WHERE = (
    r"(?:above|earlier|before|previously|prior|beforehand|in\s+(?:the\s+)?(?:previous|earlier)"
    r"\s+(?:message|turn|step|section|discussion|conversation)s?)"
)
# "as mentioned" points back by itself; "as shown" may point forward, so it needs a place
_BACK_VERBS = "mentioned|discussed|noted|stated|said|agreed|established|explained|covered"
_VERB_ALONE = f"(?:{_BACK_VERBS})"
_VERB_PLACE = f"(?:{_BACK_VERBS}|described|shown|outlined|listed|detailed|specified|given)"
_ENGLISH = (
    rf"\bas\s+(?:(?:I|we|you)\s+)?(?:had\s+|have\s+)?(?:{_VERB_ALONE}(?:\s+{_WHERE})?"
    rf"|{_VERB_PLACE}\s+{_WHERE})"
    rf"|\b(?:previously|earlier)\s+{_VERB_PLACE}"
    rf"|\b{_VERB_PLACE}\s+{_WHERE}"
    r"|\bsee\s+(?:above|earlier|before|previous(?:ly)?)"
    r"|\b(?:the\s+)?above[- ](?:mentioned|listed|described|noted)"
    r"|\baforementioned"
    r"|\bas\s+before\b(?=\s*[,:;.])"
    r"|\b(?:earlier|previously)\s+in\s+(?:this|the)\s+(?:conversation|session|thread|discussion)"
    r"|\b(?:the|this|that)\s+(?:same\s+)?(?:approach|fix|plan|issue|error|file|change|idea"
    r"|option|solution)s?\s+(?:from|in)\s+(?:above|earlier|before)"
)
_CHINESE = (
    "如上所述|如前所述|如上文所述|如前文所述|如上所示|(?<!例)如上|正如(?:之前|前面|上面|刚才)(?:所说|提到|讨论)?"
    "|(?:前面|上面|之前|刚才|先前|此前|早先)(?:已经)?(?:提到|说过|讨论|提及|所说|所述|说的|讲过|列出|描述)(?:过|的)?"
    "|上文|前文|上述|前述"
)
# The English and Chinese halves apart: no English phrase holds a CJK character nor a
# Chinese one a Latin letter, so the matches of the halves never overlap, and merged in
# order they are the matches of one English|Chinese pattern, found in half the time (an
# alternation costs more than the sum of its parts); each half runs only where one of
# its hints occurs.
_ENGLISH_REFERENCE = re.compile(_ENGLISH, re.IGNORECASE)
_CHINESE_REFERENCE = re.compile(_CHINESE)
# Every phrase holds one of these (English lower-cased): a reference-free summary costs a
# few `in`s.
_ENGLISH_HINTS = ("above", "earlier", "before", "previous", "prior", "aforementioned",
                  "mentioned", "discussed", "noted", "stated", "said", "agreed", "established",
                  "explained", "covered")  # fmt: skip
_CHINESE_HINTS = ("上", "前", "之前", "刚才", "先前", "此前", "早先")


def find_references(text: str) -> list[Reference]:
    """Back-reference phrases in ``text``, in order, English and Chinese."""
    lowered = text.lower()
    found: list[re.Match[str]] = []
    if any(hint in lowered for hint in _ENGLISH_HINTS):
        found.extend(_ENGLISH_REFERENCE.finditer(text))
    if not text.isascii() and any(hint in text for hint in _CHINESE_HINTS):
        matches = list(_CHINESE_REFERENCE.finditer(text))
        if matches:
            found = sorted([*found, *matches], key=lambda m: m.start())
    return [Reference(m.group(), m.start(), m.end()) for m in found]
