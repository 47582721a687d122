"""Standing instructions in user text (English and Chinese), each with its kind.

The API the auditor, the compactor and the hooks share::

    extract_constraints(text) -> list[Constraint]

Each :class:`Constraint` is a whole clause of ``text`` (``text[c.start:c.end] == c.text``),
its :class:`ConstraintKind`, its polarity (``negative``: it forbids something), its key
entities and its content words. :func:`~ctxkeep.extract.survival.constraint_survives`
says whether a summary still carries one. docs/judgement-constraints.md explains what
counts and why.

How a clause becomes a constraint:

1. **Markers.** One pattern finds the words that can make a clause an instruction:
   adverbs and modals (never, always, only, just, must, should, need to; 不要, 必须, 只),
   standing verbs in the imperative (use, keep, avoid, prefer, stick to; 用, 保持),
   suggestions (let's, I'd prefer, we want; 希望, 尽量), choices among the agent's options
   (option 2, go with, the second one; 方案二) and corrections (you said, I told you,
   that's wrong, no, …; 我说过, 不对). Casual forms are what real users write: over 18
   labelled real compactions, users almost never wrote "must".
2. **Filters.** Each marker is checked in its clause by the named predicates of
   :mod:`ctxkeep.extract.filters`: questions, guesses ("it must have failed"), reports
   ("I just looked", "only 3 tests fail"), one-shot requests ("let's stash", "run the
   tests again"), verbs that are not imperatives ("I use vim"), ... Markers inside text
   the user pasted (code blocks, quoted output, JSON or log lines) do not count, nor do
   casual forms inside a plan the agent wrote ("Implement the following plan: …").
3. **Clauses.** A clause opens a constraint when a marker survives there and the clause
   is no fragment; the constraint runs to the next opening clause of its sentence, so
   its object list and its reason stay with it. Brackets, quotes and dashes are
   respected (:mod:`ctxkeep.extract._clauses`).
4. **Rules lists.** Every item under a heading such as "Constraints:", "A few rules for
   this repo:" or "补充几点要求：" is a standing instruction, marker or not
   ("3. 重试最多 3 次，指数退避").

Speed: instructions are extracted from user text only, a small part of a log. The marker
pattern runs only where a word or character that opens a marker starts: the words of
ASCII text come from one ``bytes.translate`` and ``split``, and a text with none of them
is settled by a set test; other text in which none of the marker words occur is rejected
before any other regular expression runs.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import NamedTuple

from ctxkeep.extract._clauses import clause_spans, pasted_spans, sentences, strip_lead
from ctxkeep.extract._text import trimmed_span, words_of
from ctxkeep.extract._words import about
from ctxkeep.extract.filters import (
    CONSTRAINT_FILTERS,
    ConstraintFilter,
    is_agent_plan,
    is_fragment,
)

__all__ = [
    "Constraint",
    "ConstraintKind",
    "extract_constraints",
    "extract_instructions",
    "is_negative",
    "is_objectless",
]


class ConstraintKind(StrEnum):
    """What a standing instruction does."""

    PROHIBITION = "prohibition"
    """Forbids something: "do not touch the parser", "let's avoid mocks", "不要修改接口"."""
    OBLIGATION = "obligation"
    """Requires something: "always run the tests first", "keep the field order", "必须保留行号"."""
    PREFERENCE = "preference"
    """A choice of tool or style: "please use uv", "I'd prefer small commits", "尽量用中文"."""
    SCOPE = "scope"
    """Limits the work: "only touch src/cache/", "just the parser for now", "先只改 README"."""
    CHOICE = "choice"
    """Picks one of the agent's options: "option 2 is fine, and add a log line", "方案二"."""
    CORRECTION = "correction"
    """Corrects the agent: "you said X, but Y", "no, remove this again", "我说过不要改接口"."""


@dataclass(frozen=True, slots=True)
class Constraint:
    """A standing instruction exactly as it stands in the source text.

    ``text == source[start:end]``; ``kind`` is a :class:`ConstraintKind` value. ``core``
    is the instruction's own clause (with the short clauses it leads with), without the
    reason, the tail or the asides in brackets ("Never run the fuzz suite" of "Never run
    the fuzz suite (it takes 20 minutes), I told you"); empty when it is the whole text.
    ``negative`` is True when the core forbids something (a kept negation must stay a
    negation); ``keys`` are its key entities (identifiers, numbers, quoted words, code
    names) and ``words`` its content words (English stems, Chinese words): what a summary
    must still name for the instruction to survive.
    """

    text: str
    kind: str
    start: int
    end: int
    negative: bool
    keys: tuple[str, ...]
    words: tuple[str, ...]
    core: str = ""


# --------------------------------------------------------------------------- markers

_W = r"\s{1,4}"
_ASCII_MARKERS = {
    ConstraintKind.PROHIBITION: (
        rf"do{_W}not|don['’]t|dont|never|must{_W}not|mustn['’]t|should{_W}not|shouldn['’]t"
        rf"|avoid|let['’]?s{_W}not|let{_W}us{_W}not|no{_W}more(?!{_W}than)|refrain"
        rf"|doesn['’]t{_W}need{_W}to|does{_W}not{_W}need{_W}to|needn['’]t|no{_W}need{_W}to"
        rf"|stop{_W}[a-z]+ing|no(?={_W}[A-Za-z`\"'])"
    ),
    ConstraintKind.OBLIGATION: (
        rf"must|always|make{_W}sure|ensure|be{_W}sure{_W}to|remember{_W}to|needs?{_W}to"
        rf"|ha(?:ve|s){_W}to|should|from{_W}now{_W}on|going{_W}forward|every{_W}time"
        rf"|each{_W}time|keep|preserve|maintain|retain|follow|respect|honou?r|cap"
        rf"|note(?!\s*[:：]|{_W}that\b)"
    ),
    ConstraintKind.SCOPE: (
        rf"only|just|solely|exclusively|for{_W}now|at{_W}most|no{_W}more{_W}than"
        rf"|nothing{_W}(?:outside|else|but|beyond)|(?:limit|restrict)(?:ed)?{_W}to"
        rf"|stick{_W}(?:to|with)|stay{_W}(?:in|within|on)"
    ),
    ConstraintKind.CHOICE: (
        rf"option{_W}?#?(?:\d+|one|two|three|four|a|b|c|d)|approach{_W}?#?(?:\d+|a|b|c)"
        rf"|(?:first|second|third|last|former|latter){_W}(?:one|option|approach|variant|version)"
        rf"|go{_W}with"
    ),
    ConstraintKind.CORRECTION: (
        rf"you{_W}said|i{_W}said|i{_W}(?:already{_W})?told{_W}you|as{_W}i{_W}said"
        rf"|i{_W}asked{_W}(?:you|for)|that['’]?s{_W}(?:wrong|not{_W}(?:right|what))"
        rf"|that{_W}is{_W}(?:wrong|not{_W}(?:right|what))|this{_W}is{_W}wrong"
        rf"|not{_W}what{_W}i|i{_W}meant|again|no(?=\s*[,!.])|nope"
        rf"|why{_W}(?:are|did|do){_W}you"
    ),
    ConstraintKind.PREFERENCE: (
        rf"let['’]?s|let{_W}us|i['’]d{_W}(?:prefer|rather)|we{_W}want|i{_W}want"
        rf"|i{_W}would{_W}(?:prefer|rather|keep|use|go|stick|avoid)|i{_W}prefer"
        rf"|(?:can|could){_W}(?:there{_W})?be{_W}(?:[a-z0-9]{{1,10}}{_W}){{0,2}}"
        rf"(?:less|more|fewer|smaller|larger|bigger|shorter|longer|lighter|darker|brighter"
        rf"|wider|narrower|closer|simpler|clearer)"
        rf"|use|prefer|leave|stay|favou?r|reuse"
    ),
}
_CJK_MARKERS = {
    ConstraintKind.PROHIBITION: (
        "不要|别|禁止|不得|不许|不准|请勿|严禁|切勿|避免|不用"
        "|不能(?=改|修改|动|删|用|加|引入|提交|推|碰|超过|依赖|破坏|变|换)"
    ),
    ConstraintKind.OBLIGATION: (
        "必须|务必|一定要|始终|确保|记得|每次|都要|以后|今后|从现在开始|应该|应当|一律|统一"
        "|保持|保留|遵守|遵循"
    ),
    ConstraintKind.SCOPE: "只准|只能|只许|仅限|只|仅|暂时|最多|不超过",
    ConstraintKind.CHOICE: (
        "方案\\s*[一二三四五六1-9]|选项\\s*[一二三四1-9]|第\\s*[一二三四五1-9]\\s*[种个套]"
    ),
    ConstraintKind.CORRECTION: "我说过|我不是说|不对|错了|不是这样|改回|还原|撤销|我的意思是",
    ConstraintKind.PREFERENCE: (
        "我希望|希望|我想要|我更喜欢|尽量|最好|优先|就用|请用|用|使用|改用|采用|换成"
    ),
}
_ORDER = (
    ConstraintKind.CORRECTION,
    ConstraintKind.CHOICE,
    ConstraintKind.PROHIBITION,
    ConstraintKind.SCOPE,
    ConstraintKind.OBLIGATION,
    ConstraintKind.PREFERENCE,
)
_MARKER = re.compile(
    "|".join(
        rf"(?P<{kind.value}>\b(?:{_ASCII_MARKERS[kind]})\b|{_CJK_MARKERS[kind]})" for kind in _ORDER
    ),
    # ASCII: case folding and \b as in English (no long-s folding, and "请only" splits)
    re.IGNORECASE | re.ASCII,
)
# The same without the Chinese alternatives and case-sensitive, for lower-cased ASCII
# text: the same matches there at about a fifth of the cost (``re`` tries every
# alternative, and a case-sensitive one is rejected at its first letter more cheaply).
_ASCII_MARKER = re.compile(
    "|".join(rf"(?P<{kind.value}>\b(?:{_ASCII_MARKERS[kind]})\b)" for kind in _ORDER),
    re.ASCII,
)

# Every Chinese marker and rules heading holds one of these (tests/extract hold this:
# _may_hold lets through every text with a marker).
_CJK_HINTS = (
    "不要", "别", "禁止", "不得", "不许", "不准", "勿", "严禁", "避免", "不用", "不能", "必须",
    "务必", "一定要", "始终", "确保", "记得", "每次", "都要", "以后", "今后", "从现在开始",
    "应该", "应当", "一律", "统一", "保持", "保留", "遵守", "遵循", "只", "仅", "暂时", "最多",
    "不超过", "方案", "选项", "第", "我说过", "我不是说", "不对", "错了", "不是这样", "改回",
    "还原", "撤销", "我的意思是", "希望", "我想要", "我更喜欢", "尽量", "最好", "优先", "用",
    "采用", "换成", "要求", "约束", "规则", "规范", "注意事项", "原则",
)  # fmt: skip


# Every ASCII marker and rules heading holds one of these as a whole word of the
# lower-cased text (tests/extract/test_properties.py holds this): a text with none of
# them is settled by one tokenising pass and a set test, the common case of user text.
_MARKER_WORDS = words_of(
    "not don't don’t dont never must mustn't mustn’t should shouldn't shouldn’t avoid "
    "let's let’s lets let no refrain stop doesn't doesn’t need needs needn't needn’t "
    "always sure ensure remember have has now forward time keep preserve maintain retain "
    "follow respect honour honor cap note only just solely exclusively most nothing limit "
    "limited restrict restricted stick stay option approach first second third last "
    "former latter go said told asked that's that’s thats wrong meant again nope why "
    "prefer rather want would be use leave favour favor reuse rule rules constraint "
    "constraints requirement requirements guideline guidelines convention conventions "
    "instructions"
)
_LOWER_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?")


def _may_hold(text: str) -> bool:
    """False only when no marker or rules heading can be in ``text`` (a necessary test)."""
    if not _MARKER_WORDS.isdisjoint(_LOWER_WORD.findall(text.lower())):
        return True
    return not text.isascii() and any(h in text for h in _CJK_HINTS)


# The words an ASCII marker can start with (their letters up to an apostrophe: "don't"
# starts with "don"): a marker starts where such a word does, so text is matched only
# there (tests/extract/test_properties.py holds this equal to a full scan).
_START_WORDS = words_of(
    "do don dont never must mustn should shouldn avoid let lets no refrain stop doesn "
    "does needn always make ensure be remember need needs have has from going every each "
    "keep preserve maintain retain follow respect honour honor cap note only just solely "
    "exclusively for at nothing limit limited restrict restricted stick stay option "
    "approach first second third last former latter go you i as that thats this not again "
    "nope why we can could use prefer leave favour favor reuse"
)
# Every byte of ASCII text as its lower-case letter, or a space when it is no letter:
# the words of the text (its runs of letters) then come from one translate and one split,
# in C. A regex pass for the marker words and another for the starts cost 62 and 36 M
# instructions over the 1,840 user texts of a 10k compaction (this: 28 M in all; -6% of
# the compaction's instructions).
_LETTER_OR_SPACE = bytes(
    ord(chr(b).lower()) if chr(b) in string.ascii_letters else ord(" ") for b in range(256)
)
_START_BYTES = frozenset(word.encode() for word in _START_WORDS)
# Each marker word's letters up to an apostrophe ("don't" -> "don"): every ASCII marker
# and rules heading holds one of them as a run of letters.
_MARKER_RUNS = frozenset(re.split("['’]", word)[0].encode() for word in _MARKER_WORDS)


# Where a marker can start in any text: an ASCII word (a run of letters; \b needs one
# there) that a marker opens with, or the first character of a Chinese alternative
# (split at every "|", so a superset: the split also cuts inside lookaheads).
_CJK_START = re.compile(
    "["
    + "".join(sorted({re.escape(alt[0]) for p in _CJK_MARKERS.values() for alt in p.split("|")}))
    + "]"
)


def _letter_runs(text: str) -> list[bytes]:
    """The runs of ASCII letters of ``text``, lower-cased, as split at every other
    character (so a run starts after the runs before it and one separator each). Any
    other character encodes as one byte ("?"), so the offsets are those of ``text``."""
    return text.encode("ascii", "replace").translate(_LETTER_OR_SPACE).split(b" ")


def _run_starts(runs: list[bytes]) -> list[int]:
    """The offsets of the runs (of :func:`_letter_runs`) that open a marker."""
    starts: list[int] = []
    at = 0
    for word in runs:
        if word in _START_BYTES:
            starts.append(at)
        at += len(word) + 1
    return starts


def _ascii_starts(text: str) -> list[int]:
    """Where a marker can start in ASCII ``text``, in order: each word that opens one
    (:data:`_START_WORDS`), none when the text holds no marker word."""
    runs = _letter_runs(text)
    return [] if _MARKER_RUNS.isdisjoint(runs) else _run_starts(runs)


def _starts(text: str) -> list[int]:
    """Where a marker can start in ``text``, in order (see :data:`_START_WORDS`)."""
    if text.isascii():
        return _ascii_starts(text)
    starts = _run_starts(_letter_runs(text))
    starts.extend(m.start() for m in _CJK_START.finditer(text))
    return sorted(starts)


def _matches_at_starts(
    text: str, pattern: re.Pattern[str], starts: list[int]
) -> list[re.Match[str]]:
    """``pattern``'s matches in ``text``, as :meth:`re.Pattern.finditer` finds them, tried
    only at ``starts``, where a marker can start (a full scan of :data:`_MARKER` tries
    every alternative at every position: ~1.4 MB/s on real text, 0.7 ms a message of
    1,000 characters)."""
    found: list[re.Match[str]] = []
    end = 0
    for start in starts:
        if start < end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            found.append(match)
            end = match.end()
    return found


def _marker_matches(text: str) -> list[re.Match[str]] | None:
    """The matches of :data:`_MARKER` in ``text``, as one full scan would find them
    (their offsets and groups; ASCII text is matched lower-cased), or None when ``text``
    can hold neither a marker nor a rules heading (most user text: then nothing else is
    searched).

    Python's ``re`` pays per position and per alternative, so the pattern is tried only
    where a marker can start: in ASCII text (with the ASCII markers alone) where one of
    its words opens a marker, words found in C; other text without a marker word is
    rejected first.
    """
    if text.isascii():
        runs = _letter_runs(text)
        if _MARKER_RUNS.isdisjoint(runs):
            return None
        # lower-casing keeps ASCII offsets
        return _matches_at_starts(text.lower(), _ASCII_MARKER, _run_starts(runs))
    if not _may_hold(text):
        return None
    return _matches_at_starts(text, _MARKER, _starts(text))


# ------------------------------------------------------------------------- polarity

_NEGATIVE = re.compile(
    r"\b(?:not|no|never|don['’]?t|doesn['’]t|didn['’]t|mustn['’]t|shouldn['’]t|cannot"
    r"|can['’]t|won['’]t|without|avoid\w*|forbid\w*|prohibit\w*|refrain\w*|unchanged"
    r"|untouched|intact|alone|nothing|none|neither|nor|stop)\b"
    r"|不要|不能|不得|不许|不准|别|禁|勿|无|避免|不变|不动|不用",
    re.IGNORECASE,
)
_QUOTED_SPAN = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”")


def is_negative(text: str) -> bool:
    """Whether ``text`` forbids or negates something (outside quotes and code spans).

    "Keep the public API unchanged" is negative like "do not change the public API":
    both forbid a change. The survival test asks a negative constraint's carrier to be
    negative too.
    """
    return _NEGATIVE.search(_QUOTED_SPAN.sub(" ", text)) is not None


# ----------------------------------------------------------------------- extraction


class _Marker(NamedTuple):
    start: int
    end: int
    kind: ConstraintKind


# The marker patterns' group names are the kinds' values.
_KIND_OF_GROUP = {kind.value: kind for kind in ConstraintKind}
# Most specific first: a clause with "let's" and "avoid" is a prohibition.
_PRIORITY = {
    kind: rank
    for rank, kind in enumerate(
        (
            ConstraintKind.CORRECTION,
            ConstraintKind.CHOICE,
            ConstraintKind.PROHIBITION,
            ConstraintKind.SCOPE,
            ConstraintKind.OBLIGATION,
            ConstraintKind.PREFERENCE,
        )
    )
}
# Inside an agent's plan only these count: "only" and "just" there mostly describe
# ("`GetClaudeProjectDir` — only works for Claude").
_EXPLICIT = re.compile(
    r"do\s+not|don['’]t|dont|never|must|mustn['’]t|should\s+not|shouldn['’]t|always"
    r"|make\s+sure|ensure|不要|别|禁止|不得|不许|不准|请勿|严禁|切勿|必须|务必|一定要|始终|确保",
    re.IGNORECASE,
)
# A heading that ends its line with a colon, alone or as the last sentence of the line:
# "Constraints:", "A few rules for this repo:", "…in the tile cache. Constraints:", "补充几点要求："
_RULES_HEADING = re.compile(
    r"(?:^|(?<=[.!?。！？]\s))[ \t#*>-]*(?:[^\n.!?。！？]{0,40}?\b(?:rules?|constraints?"
    r"|requirements?|guidelines?|conventions?|instructions)\b[^\n.!?。！？]{0,20}"
    r"|[^\n.!?。！？]{0,20}(?:要求|约束|规则|规范|注意事项|原则))[:：][ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*•·]|\d{1,3}[.)、])[ \t]+")
_HEADING_END = re.compile(r"[:：][ \t]*\n")


def _rules_items(text: str) -> Iterator[int]:
    """Start offsets of the items listed under a rules heading ("Constraints:").

    A heading ends its line with a colon, so only such lines are searched for one.
    """
    for colon in _HEADING_END.finditer(text):
        newline = colon.end() - 1
        if _RULES_HEADING.search(text, text.rfind("\n", 0, newline) + 1, newline) is None:
            continue
        position = newline + 1
        while position < len(text):
            line_end = text.find("\n", position)
            if line_end == -1:
                line_end = len(text)
            item = _LIST_ITEM.match(text, position, line_end)
            if item is None:
                break
            yield item.end()
            position = line_end + 1


def _accepted(text: str, clause: tuple[int, int], marker: _Marker, tail: int) -> bool:
    """Whether no constraint filter drops ``marker`` in its clause (up to ``tail``).

    A marker inside brackets is judged from the bracket: in "do a refactor (please also
    note the ACCESSIBLE requirement)" the parenthesis is a clause of its own.
    """
    clause_start = _bracket_start(text, clause[0], marker.start)
    if clause_start != clause[0] and not _bracket_order(text, clause_start, marker):
        return False  # "(no in-repo handler)": an aside, not an order
    # the clause handed to the filters runs to the sentence end, terminator included,
    # so that a question mark is seen from every clause of the question
    body = text[clause_start:tail]
    return _dropped_by(body, marker.start - clause_start, marker.end - clause_start) is None


def _dropped_by(clause: str, start: int, end: int) -> ConstraintFilter | None:
    """The first constraint filter that drops the marker at ``clause[start:end]``, or None."""
    for dropped in CONSTRAINT_FILTERS:
        if dropped(clause, start, end):
            return dropped
    return None


_PLEASE = re.compile(r"\s*(?:please|pls|kindly)\b|\s*请", re.IGNORECASE)


def _bracket_order(text: str, start: int, marker: _Marker) -> bool:
    """Whether a marker inside brackets gives an order: the aside opens with please
    ("(please also note the ACCESSIBLE requirement)") or the marker is explicit
    ("(never on Fridays)"); "(no pandas)" or "(only genuinely malformed files remain)"
    describe their clause."""
    return _PLEASE.match(text, start) is not None or (
        _EXPLICIT.fullmatch(text, marker.start, marker.end) is not None
    )


_OPEN_BRACKETS = "([{（【「"
_CLOSE_BRACKETS = ")]}）】」"
_BRACKET = re.compile("[" + re.escape(_OPEN_BRACKETS + _CLOSE_BRACKETS) + "]")


def _bracket_start(text: str, start: int, position: int) -> int:
    """Just after the innermost bracket still open at ``position`` (else ``start``)."""
    opened: list[int] = []
    for bracket in _BRACKET.finditer(text, start, position):
        if bracket.group() in _OPEN_BRACKETS:
            opened.append(bracket.start())
        elif opened:
            opened.pop()
    return opened[-1] + 1 if opened else start


def is_objectless(text: str) -> bool:
    """``Don't!`` / ``Never again.`` / ``只能这样``: a marker with nothing it applies to.

    With no content word and no key entity nothing could show that a summary carries it.
    """
    keys, words = about(text)
    return not keys and not words


def _in_name(text: str, match: re.Match[str]) -> bool:
    """``src/only/x.py``, ``NEVER/``, ``no-op``, ``always_on``: the marker is part of a
    name or path, not a word of the sentence."""
    before = text[match.start() - 1 : match.start()]
    after = text[match.end() : match.end() + 2]
    if before in ("/", "\\", ".", "_", "-") or after[:1] in ("/", "\\"):
        return True
    return after[:1] in (".", "_", "-") and after[1:2].strip() != ""


def _markers(text: str) -> list[_Marker]:
    """Every marker of ``text`` outside pasted text (casual ones only outside a plan)."""
    matches = _marker_matches(text)
    if matches is None:
        return []
    items = list(_rules_items(text)) if _HEADING_END.search(text) and _may_hold(text) else []
    if not matches and not items:
        return []
    pasted = list(pasted_spans(text))
    plan = is_agent_plan(text)
    out: list[_Marker] = []
    for match in matches:
        if pasted and any(s <= match.start() < e for s, e in pasted):
            continue
        if _in_name(text, match):
            continue
        if plan and _EXPLICIT.fullmatch(text, match.start(), match.end()) is None:
            continue
        kind = _KIND_OF_GROUP[match.lastgroup or ConstraintKind.OBLIGATION]
        out.append(_Marker(match.start(), match.end(), kind))
    for start in items:
        if not any(s <= start < e for s, e in pasted):
            # a listed rule needs no marker: an empty marker at the head of the item
            out.append(_Marker(start, start, ConstraintKind.OBLIGATION))
    if items:  # the matches come in order; the listed items go between them
        out.sort(key=lambda m: (m.start, m.end))
    return out


def extract_constraints(text: str) -> list[Constraint]:
    """The standing instructions of ``text`` (user text), in order.

    ``text[c.start:c.end] == c.text`` for each; see the module docstring for what
    counts.
    """
    markers = _markers(text)
    if not markers:
        return []
    constraints: list[Constraint] = []
    index = 0
    for sentence_start, sentence_end in sentences(text):
        while index < len(markers) and markers[index].start < sentence_start:
            index += 1
        inside: list[_Marker] = []
        while index < len(markers) and markers[index].end <= sentence_end:
            inside.append(markers[index])
            index += 1
        if inside:
            constraints.extend(_sentence_constraints(text, sentence_start, sentence_end, inside))
    return constraints


_PART_BREAK = re.compile(r";\s|；")


def extract_instructions(text: str) -> list[Constraint]:
    """Every sentence of ``text``, and every part of one between semicolons, that says
    something, as one constraint each: for text that is all instructions, such as the
    arguments of ``/compact`` ("keep the exact test commands; drop the debugging
    details"). A part with markers gets their kind, one without is an obligation.
    """
    found: list[Constraint] = []
    for start, end in sentences(text):
        breaks = list(_PART_BREAK.finditer(text, start, end))
        bounds = [start, *(m.end() for m in breaks)]
        ends = [*(m.start() for m in breaks), end]
        for bound, limit in zip(bounds, ends, strict=True):
            part_start, part_end = trimmed_span(text, bound, limit)
            piece = text[part_start:part_end]
            inner = extract_constraints(piece)
            if inner:
                found.extend(
                    replace(c, start=c.start + part_start, end=c.end + part_start) for c in inner
                )
                continue
            keys, words = about(piece)
            if keys or words:
                found.append(
                    Constraint(
                        piece, ConstraintKind.OBLIGATION.value, part_start, part_end,
                        is_negative(piece), keys, words,
                    )
                )  # fmt: skip
    return found


def _opening_kinds(
    text: str, clauses: list[tuple[int, int]], markers: list[_Marker], tail: int
) -> tuple[dict[int, ConstraintKind], bool]:
    """Clause index -> kind, for each clause where an accepted marker opens a constraint,
    and whether the sentence is an item under a rules heading (then one constraint).

    The most specific kind of the clause's accepted markers wins (:data:`_PRIORITY`); an
    item under a rules heading is an obligation unless a marker says more.
    """
    kinds: dict[int, ConstraintKind] = {}
    listed: set[int] = set()
    position = 0
    for marker in markers:
        while position + 1 < len(clauses) and clauses[position + 1][0] <= marker.start:
            position += 1
        clause = clauses[position]
        if marker.end == marker.start:
            if not text[clause[0] : tail].rstrip().endswith(("?", "？")):
                listed.add(position)
            continue
        if marker.start >= clause[1] or not _accepted(text, clause, marker, tail):
            continue
        known = kinds.get(position)
        if known is None or _PRIORITY[marker.kind] < _PRIORITY[known]:
            kinds[position] = marker.kind
    for position in listed:
        # a listed rule is one instruction ("不要修改公共接口：方法签名保持不变，…"), of
        # the kind of its first marked clause
        return {position: kinds[min(kinds)] if kinds else ConstraintKind.OBLIGATION}, True
    return kinds, False


# Leading clauses of at most this many words join the first constraint of the sentence:
# "We still support Python 3.9, so no match statements" keeps its reason.
_LEAD_WORDS = 12
_DASHES = ("—", "–", " - ")


def _openings(
    text: str, clauses: list[tuple[int, int]], kinds: dict[int, ConstraintKind]
) -> list[int]:
    """The clauses that open a constraint: no fragment, no objectless reference such as
    "I told you at the start" after an instruction (those continue the one before)."""
    openings: list[int] = []
    for position in sorted(kinds):
        clause_text = text[clauses[position][0] : clauses[position][1]]
        if openings and (is_fragment(clause_text) or is_objectless(clause_text)):
            continue  # "never float": the tail of the clause before
        if is_objectless(clause_text) and not _continues(text, clauses, position, kinds):
            continue
        openings.append(position)
    return openings


def _lead(
    text: str, clauses: list[tuple[int, int]], first: int, kinds: dict[int, ConstraintKind]
) -> int:
    """How many clauses before the first constraint of a sentence belong to it: all of
    them when they are short, joined by commas or colons, and say something ("We still
    support Python 3.9, so no …") or are a marker alone ("for now, leave …", "No, remove
    …", "不对，…"); none when they are a label or a reference ("Important: never …",
    "Also: …", "I told you at the start: …")."""
    if first == 0:
        return 0
    joints = [text[clauses[i][1] : clauses[i + 1][0]] for i in range(first)]
    lead = text[clauses[0][0] : clauses[first - 1][1]]
    if any(d in j for j in joints for d in _DASHES) or len(lead.split()) > _LEAD_WORDS:
        return 0
    if is_objectless(lead) and not (is_fragment(lead) and any(p < first for p in kinds)):
        return 0  # "Also:", "I said that at the very beginning:": no part of the order
    return first


def _sentence_constraints(
    text: str, start: int, end: int, markers: list[_Marker]
) -> list[Constraint]:
    tail = end + 1 if end < len(text) and text[end] in "?？" else end
    clauses = clause_spans(text, start, end)
    if not clauses:
        return []
    kinds, _ = _opening_kinds(text, clauses, markers, tail)
    openings = _openings(text, clauses, kinds)
    result: list[Constraint] = []
    for n, position in enumerate(openings):
        last = openings[n + 1] - 1 if n + 1 < len(openings) else len(clauses) - 1
        lead = _lead(text, clauses, position, kinds) if n == 0 else 0
        kind = min(
            (kinds[p] for p in range(position - lead, position + 1) if p in kinds),
            key=_PRIORITY.__getitem__,
        )
        span_start = strip_lead(text, clauses[position - lead][0], clauses[last][1])
        span_end = clauses[last][1]
        while span_end > span_start and text[span_end - 1] in " \t\r\n,，:：;；":
            span_end -= 1
        body = text[span_start:span_end]
        # what it is about: the instruction's own clause and the ones it leads with,
        # not the reason or tail after it ("…, a tiny library", "…, never float")
        core = _without_asides(text[span_start : min(span_end, clauses[position][1])])
        keys, words = about(core)
        if not keys and not words:
            core = body  # "I told you: the schema file is generated"
            keys, words = about(core)
        if not keys and not words:
            continue  # "Don't!": nothing it applies to
        result.append(
            Constraint(
                body,
                kind.value,
                span_start,
                span_end,
                is_negative(core),
                keys,
                words,
                "" if core == body else core,
            )
        )
    return result


_ASIDE = re.compile(r"\s*[(（][^()（）]*[)）]")


def _without_asides(clause: str) -> str:
    """``clause`` without its bracketed asides: "Never hold c.mu while calling the origin
    (network I/O under the lock is what made p99 latency spike last month)" is about the
    lock and the origin, not the latency. A clause that is all aside stays as it is."""
    if "(" not in clause and "（" not in clause:
        return clause.strip() or clause  # no aside
    pieces: list[str] = []
    position = 0
    for aside in _ASIDE.finditer(clause):
        before = clause[: aside.start()]
        if before.count('"') % 2 or before.count("`") % 2 or before.count("“") > before.count("”"):
            continue  # inside a quote: '"(line X, column Y)" suffix' is what it is about
        pieces.append(clause[position : aside.start()])
        position = aside.end()
    stripped = "".join([*pieces, clause[position:]]).strip()
    return stripped or clause


def _continues(
    text: str, clauses: list[tuple[int, int]], position: int, kinds: dict[int, ConstraintKind]
) -> bool:
    """Whether the clauses after an objectless opener (up to the next opener) hold words:
    "No! Never …" has none, "that is wrong, I can see the trailers on main" has."""
    following = position + 1
    while following < len(clauses) and following not in kinds:
        if not is_objectless(text[clauses[following][0] : clauses[following][1]]):
            return True
        following += 1
    return False
