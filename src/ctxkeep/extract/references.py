"""Back-references in a summary ("as mentioned above", "如上所述") that point at text the
summary may have replaced, and whether the summary itself states what they point at.

:func:`find_references` finds the phrases; :func:`unresolved_references` keeps those that
are the summary's own (not quoted speech, not "listed before X", named filters in
:mod:`ctxkeep.extract.filters`) and that :func:`resolved_in_summary` cannot resolve: a
phrase whose sentence talks about things the summary names before it ("the error detailed
above" after the summary quotes the error) points at text the reader still has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctxkeep.extract._text import (
    cjk_bigrams,
    normalise_word,
    summary_sentences,
    word_set,
    words_of,
)
from ctxkeep.extract.filters import REFERENCE_FILTERS

__all__ = [
    "RESOLVED_SHARE",
    "Reference",
    "find_references",
    "resolved_in_summary",
    "unresolved_references",
]


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
    rf"\bas\s+(?:(?:i|we|you)\s+)?(?:had\s+|have\s+)?(?:{_VERB_ALONE}(?:\s+{_WHERE})?"
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
# The English half (written in lower case) is matched case-sensitively in the lower-cased
# text: the same spans in under half the time (66 real and benchmark summaries: 56 -> 22
# ms; the 26k-event log's audit 4.33 -> 3.97 G instructions, -8.4%, the whole command
# -5.5%). That holds where lowering
# keeps every character one character (not "İ") and where no character other than a
# letter's own cases matches an ASCII letter ignoring case: "ſ" (s) and "ı" (i) do; the
# Kelvin sign (k) lowers to "k". Lowering changes no character's word or space class.
# Elsewhere the half is matched ignoring case (compiled on first use, as ``re`` caches
# it: compiling it takes 4.6 ms), hints or not: "ſaid" does not hold "said".
_ENGLISH_LOWER_CASE = re.compile(_ENGLISH)
_FOLDS_TO_ASCII = re.compile("[\u017f\u0131]")
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
    found: list[tuple[int, int]] = []
    if len(lowered) != len(text) or _FOLDS_TO_ASCII.search(text) is not None:
        # "prİor", "ſaid": the hints cannot be looked for in the lowered text either
        found.extend(m.span() for m in re.finditer(_ENGLISH, text, re.IGNORECASE))
    elif any(hint in lowered for hint in _ENGLISH_HINTS):
        found.extend(m.span() for m in _ENGLISH_LOWER_CASE.finditer(lowered))
    if not text.isascii() and any(hint in text for hint in _CHINESE_HINTS):
        spans = [m.span() for m in _CHINESE_REFERENCE.finditer(text)]
        if spans:
            found = sorted([*found, *spans])
    return [Reference(text[start:end], start, end) for start, end in found]


# Words that say nothing about what a reference points at.
_FUNCTION_WORDS = words_of(
    "a an the this that these those it its is are was were be been being as we you i they "
    "he she our your my their and or but so then also with without for from into onto of "
    "to in on at by up out over under all any each every some same such other more most "
    "have has had do does did done will would should could can may might must not no yes "
    "just only very there here what which who whom whose when where why how again already "
    "still now use used using make made keep kept need needs see seen per via let lets "
    "mentioned discussed noted stated said agreed established explained covered described "
    "shown outlined listed detailed specified given above earlier before previously prior "
    "beforehand aforementioned message turn step section discussion conversation thread "
    "session previous first later last one"
)
RESOLVED_SHARE = 0.5
"""Share of the sentence's content words the summary must name before the phrase for the
phrase to point at something the summary itself states (CK006 prints it in its docs)."""


def _content_words(text: str) -> set[str]:
    return {w for w in word_set(text) if len(w) >= 3 and w not in _FUNCTION_WORDS}


def _sentence_around(summary: str, reference: Reference) -> tuple[int, int]:
    for start, end in summary_sentences(summary):
        if start <= reference.start < end:
            return start, max(end, reference.end)
    return reference.start, reference.end


# Nouns that name a kind of item the summary may show rather than name: "the files listed
# before" after a list of paths, "the error detailed above" after a quoted error.
_PATH_NOUNS = words_of("file path folder directory dir module")
_ERROR_NOUNS = words_of("error failure exception message warning output traceback")
_PATHISH = re.compile(r"[\w.-]+/[\w./-]+|\b[\w-]+\.[A-Za-z]{1,5}\b")
_ERRORISH = re.compile(r"\berror\b|\bfail|exception|panic|[\"\u201c`][^\"\u201d`\n]{12,}", re.I)
_PARTICIPLE_FIRST = re.compile(
    r"(?:mentioned|discussed|noted|stated|described|shown|outlined|listed|detailed|specified|"
    r"given|explained|covered)\b",
    re.IGNORECASE,
)
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z_-]*)\W*$")
_WORD_AFTER = re.compile(r"\W*([A-Za-z][A-Za-z_-]*)")
_CJK_AFTER = re.compile(r"的?([\u3400-\u9fff]{2})")


def _head_noun(summary: str, reference: Reference) -> tuple[str, int] | None:
    """The noun a phrase qualifies and where the text before phrase and noun ends: "the
    **error** detailed above", "the above-mentioned **file**", "前面提到的**接口**"; None
    when the phrase stands alone."""
    phrase = reference.text
    if phrase[-1:] in "的述" or phrase in ("上文", "前文"):
        match = _CJK_AFTER.match(summary, reference.end)
        return (match.group(1), reference.start) if match else None
    if _PARTICIPLE_FIRST.match(phrase):
        match = _WORD_BEFORE.search(summary, max(0, reference.start - 30), reference.start)
        if match is None or match.group(1).lower() in _FUNCTION_WORDS:
            return None
        return match.group(1).lower(), match.start(1)
    if phrase.lower().endswith(("mentioned", "listed", "described", "noted", "aforementioned")):
        match = _WORD_AFTER.match(summary, reference.end)
        return (match.group(1).lower(), reference.start) if match else None
    return None


def _named_before(noun: str, before: str) -> bool:
    """Whether the summary, before the phrase, names the noun or shows such an item."""
    if not noun.isascii():
        return noun in before
    word = normalise_word(noun)
    if word in _PATH_NOUNS and _PATHISH.search(before):
        return True
    if word in _ERROR_NOUNS and _ERRORISH.search(before):
        return True
    return word in _content_words(before)


def resolved_in_summary(summary: str, reference: Reference) -> bool:
    """Whether the summary names, before the phrase, what the phrase points at.

    When the phrase qualifies a noun ("the error detailed above", "the files listed
    before", "前面提到的接口"), that noun, or an item of its kind (a path for "files", a
    quoted error for "error"), must stand earlier in the summary. Otherwise the sentence
    of the phrase, the phrase left out, gives the referent's words ("use the retry
    settings as discussed earlier" -> retry, settings): at least :data:`RESOLVED_SHARE` of
    them (English words, or Chinese character pairs) must occur earlier. A sentence with no
    such word ("As mentioned above.") cannot be resolved.
    """
    head = _head_noun(summary, reference)
    if head is not None:
        noun, before_end = head
        return _named_before(noun, summary[:before_end])
    start, end = _sentence_around(summary, reference)
    rest = summary[start : reference.start] + " " + summary[reference.end : end]
    before = summary[:start]
    wanted = _content_words(rest)
    grams = cjk_bigrams(rest)
    if not wanted and not grams:
        return False
    found = len(wanted & _content_words(before)) + len(grams & cjk_bigrams(before))
    return found >= RESOLVED_SHARE * (len(wanted) + len(grams))


def unresolved_references(summary: str) -> list[Reference]:
    """The summary's own back-references that it does not itself resolve: the ghosts."""
    return [
        r
        for r in find_references(summary)
        if not any(f(summary, r.start, r.end) for f in REFERENCE_FILTERS)
        and not resolved_in_summary(summary, r)
    ]
