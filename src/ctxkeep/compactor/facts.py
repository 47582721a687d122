"""The facts a dropped message established: clauses that carry something specific.

A fact is a sentence, or the run of clauses of a long sentence, that holds at least one
*feature*: a number with its unit, a money amount, a date or a time, a named entity (a
capitalised word inside a sentence), an identifier (a path, URL, ``snake_case`` or
`ticked` name), what the speaker says of themselves (I, my, we, our, 我), a preference or
a decision (prefer, decided, instead of, 喜欢, 决定, 改用), or a correction (actually, no
longer, 其实, 不再). Its *specificity* adds the weights of its features; it is ranked by
specificity, by its speaker (the user's words weigh double: they are the only record of
what the user said), by the value the scorer gave its message (relevance to the task,
counted less than specificity) and lower for a question; newer facts win ties. Facts are
verbatim slices of the message text.

Deduplication: the same fact said twice (same words) is kept once, the newer; a fact
whose words are inside another's is not kept beside it; and two facts that read the same
but for their numbers ("my flight is on the 12th" / "... on the 15th") are one fact that
changed: only the newer is kept.

English and Chinese: features are found with ``str.find`` on the whole text and one
digit scan, then assigned to sentences, so the cost stays near C speed on long texts.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from ctxkeep.compactor.text import utf8_size
from ctxkeep.extract._text import clause_starts, sentence_spans, squash, words_of

__all__ = ["Fact", "FactSource", "collect_facts", "select_facts"]

MAX_FACT_BYTES = 280
"""A fact longer than this is cut to its featured clauses, or skipped."""

_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_WORD_AFTER = re.compile(r"\s?(%|°[CF]?|[A-Za-z]+|[\u4e00-\u9fff])")
_CAPITAL = re.compile(r"[A-Z][A-Za-z]+")
_IDENT_CHARS = re.compile(r"[/_`@\\]|://")

_UNITS_EN = words_of(
    "kg g mg lb lbs pound pounds oz ounce ounces km m cm mm mi mile miles ft feet foot inch "
    "inches yd l ml liter liters litre litres gallon gallons hour hours hr hrs h minute "
    "minutes min mins second seconds sec secs s ms day days week weeks month months year "
    "years yr yrs yo am pm k bn gb mb kb tb gib mib kib ghz mhz hz kw w v mph kph kmh rpm "
    "dollars dollar usd eur euros euro gbp cad aud jpy cny yuan rmb people persons guests "
    "nights tickets times x percent degrees calories kcal steps reps sets pages floors "
    "stars st nd rd th"
)
_UNITS_ZH = frozenset("公斤千克克斤米里点时分秒天周月年岁元块角位个次人倍万亿度层页张本号日晚")
_DATE_ZH = frozenset("年月日号")
_MONTHS = words_of(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_WEEKDAYS = words_of("monday tuesday wednesday thursday friday saturday sunday")
_NOT_ENTITIES = words_of(
    "I OK Ok Hi Hey Hello Thanks Thank Yes No Sure Please Also And But So The This That It "
    "Its We You He She They My Our Your Let Here There What When Where Why How Which Who "
    "If Then Great Good Nice Well Oh Okay Step Note"
)
_CURRENCY = frozenset("$€£¥")

# (weight, markers): each found with str.find in the lower-cased text.
_MARKERS: tuple[tuple[str, float, tuple[str, ...]], ...] = (
    ("self", 1.0, (" my ", " i ", " i'm ", " i've ", " i'll ", " we ", " we're ", " our ",
                   "我")),
    ("preference", 1.5, ("prefer", " favorite", " favourite", " allergic", " i like ",
                         " i love ", " i hate ", " i don't like", " can't stand", "喜欢",
                         "讨厌", "偏好", "过敏", "爱吃", "不吃")),
    ("decision", 1.5, ("decided", "decision", "go with", "agreed", " chose ", "instead of",
                       "switch to", "switched to", "from now on", "going forward",
                       "settled on", " will use ", "决定", "改用", "改成", "换成", "就用",
                       "确定")),
    ("correction", 0.75, ("actually", "no longer", "anymore", "changed", " moved ",
                          " now ", "update", "其实", "不再", "现在", "改为", "改到", "已经")),
)  # fmt: skip
_ROLE_WEIGHT = {"user": 2.0, "assistant": 1.0, "system": 1.0}
_TOOL_WEIGHT = 0.6
_QUESTION_WEIGHT = 0.5
_STAND_INS = 8
"""The most pieces without a feature a summary shows, when nothing more specific went."""


@dataclass(frozen=True, slots=True)
class FactSource:
    """A text the summary may draw facts from: a dropped message, or what was elided from
    a shortened one. ``value`` is the scorer's value for its message (0 when unscored)."""

    index: int
    role: str | None
    text: str
    value: float
    instructions: tuple[str, ...] | None = None
    """The standing instructions of ``text`` (verbatim) when already extracted; None
    when the summary must extract them."""


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact: verbatim text, where it came from, and how it ranks."""

    text: str
    source: int
    role: str | None
    specificity: float
    rank: float
    bytes: int
    key: str
    frame: str
    start: int
    """Where it starts in its source text."""


def _number_weight(text: str, match: re.Match[str]) -> tuple[float, bool]:
    """(weight, is a date) of one number by the word after it or the sign before it."""
    digits = match.group()
    after = _WORD_AFTER.match(text, match.end())
    word = after.group(1) if after is not None else ""
    before = text[match.start() - 1] if match.start() else ""
    if before in _CURRENCY or word == "%" or word.startswith("°"):
        return 2.0, False
    if word in _DATE_ZH or digits.count("-") == 2 or digits.count("/") >= 1:
        return 2.0, True
    if ":" in digits:
        return 1.5, False
    lowered = word.lower()
    if lowered in _UNITS_EN or (len(word) == 1 and word in _UNITS_ZH):
        return 2.0, False
    return (0.25 if len(digits) >= 2 else 0.1), False


def _features(text: str, lowered: str) -> list[tuple[int, float]]:
    """(offset, weight) of every feature in ``text``, in no particular order."""
    found: list[tuple[int, float]] = []
    for match in _NUMBER.finditer(text):
        found.append((match.start(), _number_weight(text, match)[0]))
    for match in _CAPITAL.finditer(text):
        word = match.group()
        low = word.lower()
        if low in _MONTHS or low in _WEEKDAYS:
            found.append((match.start(), 1.5))
        elif word not in _NOT_ENTITIES and not _starts_sentence(text, match.start()):
            found.append((match.start(), 1.0))
    for match in _IDENT_CHARS.finditer(text):
        found.append((match.start(), 1.5))
    padded = " " + lowered
    for _name, weight, markers in _MARKERS:
        for marker in markers:
            at = padded.find(marker)
            while at != -1:
                found.append((max(0, at - 1), weight))
                at = padded.find(marker, at + 1)
    return found


def _starts_sentence(text: str, at: int) -> bool:
    """Whether the word at ``at`` opens a sentence, a line, a quote or a list item."""
    k = at - 1
    while k >= 0 and text[k] in " \t\"'“‘(*-#>":
        k -= 1
    return k < 0 or text[k] in ".!?:\n。！？：；"


_CONNECTIVES = ("and ", "but ", "so ", "also ", "oh ", "btw ", "by the way ", "而且", "另外")
_LEADING_CONNECTIVES = re.compile("".join(f"(?:{re.escape(lead)})?" for lead in _CONNECTIVES))
"""Each connective at most once, in the order of :data:`_CONNECTIVES` ("and so", not
"so and"): one match instead of a startswith per connective."""


def _trim_words(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` past leading connectives (and, but, so, also, 而且, 另外)."""
    head = text[start : start + 40].lower()
    skipped = _LEADING_CONNECTIVES.match(head)
    return start + (skipped.end() if skipped is not None else 0), end


def _pieces(
    text: str, start: int, end: int, offsets: list[int], weights: list[float]
) -> Iterator[tuple[int, int, float]]:
    """The fact pieces of one sentence: itself when short, else its featured clause runs."""
    lo = bisect.bisect_left(offsets, start)
    hi = bisect.bisect_left(offsets, end)
    if lo == hi:
        yield start, end, 0.0
        return
    if utf8_size(text[start:end]) <= MAX_FACT_BYTES:
        yield start, end, _capped(weights[lo:hi])
        return
    starts = clause_starts(text, start, end)
    bounds = [*starts[1:], end]
    for c_start, c_end in zip(starts, bounds, strict=True):
        a = bisect.bisect_left(offsets, c_start)
        b = bisect.bisect_left(offsets, c_end)
        if a == b:
            continue
        s, e = c_start, c_end
        while e > s and text[e - 1] in " ,;:，；：":
            e -= 1
        if utf8_size(text[s:e]) <= MAX_FACT_BYTES:
            yield s, e, _capped(weights[a:b])


def _capped(weights: Sequence[float]) -> float:
    """Specificity: the sum of the weights, the largest five counted (a table row of
    twenty numbers is not twenty facts)."""
    return sum(sorted(weights, reverse=True)[:5])


def is_question(text: str, end: int) -> bool:
    """Whether the sentence that ends at ``end`` (its terminator excluded) is a question.

    A question asks; it establishes little. The case: in long chats the user's questions
    name things ("Who built Angkor Wat?", "去西安玩两天应该看什么？") and outranked what
    the user said of themselves in the same messages. A question still counts, at a
    lower weight (``Can we meet on May 3?`` may be all there is of a date).
    """
    return text[end : end + 1] in ("?", "？")


def collect_facts(sources: Sequence[FactSource], total: int) -> list[Fact]:
    """Every candidate fact of ``sources`` (``total``: messages in the conversation, for
    each source's place in time). The texts are read as one: each feature scan runs once
    over all of them (a newline between two texts ends a sentence)."""
    if not sources:
        return []
    joined = "\n".join(source.text for source in sources)
    starts: list[int] = []
    at = 0
    for source in sources:
        starts.append(at)
        at += len(source.text) + 1
    features = sorted(_features(joined, joined.lower()))
    offsets = [at for at, _ in features]
    weights = [w for _, w in features]
    last = max(1, total - 1)
    out: list[Fact] = []
    for s_start, s_end in sentence_spans(joined):
        k = bisect.bisect_right(starts, s_start) - 1
        source = sources[k]
        role_weight = _ROLE_WEIGHT.get(source.role or "", _TOOL_WEIGHT)
        relevance = (1.0 + source.value) * (1 + 0.1 * source.index / last)
        if is_question(joined, s_end):
            relevance *= _QUESTION_WEIGHT
        for p_start, p_end, specificity in _pieces(joined, s_start, s_end, offsets, weights):
            start, end = _trim_words(joined, p_start, p_end)
            piece = joined[start:end].strip()
            if len(piece) < 4:
                continue
            key = squash(piece) if specificity >= 1.0 else ""
            out.append(
                Fact(
                    piece, source.index, source.role, specificity,
                    specificity * role_weight * relevance, utf8_size(piece), key, _frame(key),
                    start - starts[k],
                )
            )  # fmt: skip
    return out


_LEADS = ("actually ", "also ", "and ", "but ", "so ", "oh ", "well ", "update ", "sorry ",
          "correction ", "now ", "其实", "另外", "现在", "更正")  # fmt: skip


_LEAD_RUN = re.compile("(?:" + "|".join(map(re.escape, _LEADS)) + ")+")
_DIGITS = re.compile(r"\d+")


def _frame(key: str) -> str:
    """A fact's words with its numbers masked and its leading connectives gone: two facts
    of one frame are one fact whose value changed."""
    if not key:
        return ""
    frame = _DIGITS.sub("#", key)
    lead = _LEAD_RUN.match(frame)
    return frame if lead is None else frame[lead.end() :]


def select_facts(candidates: Sequence[Fact]) -> list[Fact]:
    """The facts worth packing, best first: newer duplicates and newer values win.

    Pieces of specificity 1 or more come first, by rank per byte. Only when there is no
    such fact, a few pieces said in words (not tool output) stand in: by value, newer
    first (a summary that says nothing of what went is worse than a weak one).
    """
    facts = [f for f in candidates if f.key]
    newest_of_frame: dict[str, tuple[int, int]] = {}
    for fact in facts:
        if "#" in fact.frame:
            place = (fact.source, fact.start)
            newest_of_frame[fact.frame] = max(newest_of_frame.get(fact.frame, place), place)
    by_key: dict[str, Fact] = {}
    for fact in facts:
        if "#" in fact.frame and (fact.source, fact.start) < newest_of_frame[fact.frame]:
            continue  # the same words with other numbers later: the value changed
        held = by_key.get(fact.key)
        if held is None or fact.source > held.source:
            by_key[fact.key] = fact
    proper = [f for f in by_key.values() if f.specificity >= 1.0]
    if proper:
        return sorted(proper, key=lambda f: (f.rank / (f.bytes + 16), f.source), reverse=True)
    said = [f for f in candidates if f.role in _ROLE_WEIGHT]
    said.sort(key=lambda f: (f.rank, f.source), reverse=True)
    stand_ins: dict[str, Fact] = {}
    for fact in said:
        key = squash(fact.text)
        if key and key not in stand_ins:
            stand_ins[key] = replace(fact, key=key, frame=_frame(key))
        if len(stand_ins) == _STAND_INS:
            break
    return list(stand_ins.values())
