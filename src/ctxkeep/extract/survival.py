"""Whether a summary still carries a standing instruction: kept, reworded or lost.

A summary rarely repeats the user's words. "Only cache per user id, not per session"
comes back as "Caching is keyed on the user id alone, never the session"; "不要修改公共
接口" as "公共接口不能修改". So the test compares what the instruction is about, not its
wording, sentence by sentence of the summary:

- **kept**: the instruction's words appear (near-)verbatim in the summary;
- **reworded**: one sentence of the summary (a list item counts as one) names enough of
  its key entities (paths, names, numbers, quoted words: :func:`~ctxkeep.extract._words.keys_of`)
  and of its content words (English stems, Chinese words:
  :func:`~ctxkeep.extract._words.content_words`), with the same polarity: a negative
  instruction ("never", "do not", "keep … unchanged") needs a negative sentence, and an
  instruction that holds "always" / "every time" / "before you …" needs a sentence that
  still reads as a rule (must, always, only, keep, the user asked …), not a report that
  it was done once;
- **lost** otherwise.

docs/judgement-constraints.md gives the thresholds and the figures they were chosen on.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from ctxkeep.extract._text import CJK_RUN, bigrams, squash, summary_sentences
from ctxkeep.extract._words import about, en_words, stem
from ctxkeep.extract.constraints import Constraint, extract_constraints, is_negative

__all__ = [
    "Survival",
    "Verdict",
    "constraint_survives",
    "judge_survival",
    "normal_form",
    "still_carried",
    "text_carried",
]


class Survival(StrEnum):
    KEPT = "kept"
    REWORDED = "reworded"
    LOST = "lost"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What became of one constraint in one summary.

    ``carrier`` is the summary sentence that carries a reworded instruction (None when
    kept verbatim: its own words are there; None when lost); ``score`` the share of its
    keys and words that sentence names (1.0 when kept verbatim).
    """

    survival: Survival
    carrier: str | None
    score: float


# A key or word counts as named when this share of them is (keys and words apart).
KEY_SHARE = 0.5
WORD_SHARE = 0.5
# near-verbatim: this share of the constraint's token trigrams appear in the summary
VERBATIM_SHARE = 0.8
# a Chinese word is present when this share of its bigrams is (one character may differ)
_BIGRAM_SHARE = 2 / 3

# A sentence that still reads as a rule, not as a report of what was done once.
_RULE_CUE = re.compile(
    r"\b(?:must|always|never|only|should|shall|need(?:s|ed)?\s+to|ha(?:s|ve)\s+to|require\w*"
    r"|constraints?|rules?|keep|kept|stay\w*|remain\w*|unchanged|intact|every|each|whenever"
    r"|before|avoid\w*|without|no|not|don['’]?t|do\s+not|asked|wants?|wanted|requested"
    r"|prefer\w*|insist\w*|instruct\w*|user|alone|solely|exclusively|limit\w*|restrict\w*"
    r"|still|per|instead)\b"
    r"|必须|务必|一定|始终|总是|每次|都要|要求|需要|确保|应该|只|仅|不|别|禁|保持|保留|避免|用户|希望",
    re.IGNORECASE,
)
# "never" is no cue here: a negative instruction is held to its polarity instead.
_PERSISTENT = re.compile(
    r"\b(?:always|every\s+time|each\s+time|whenever|from\s+now\s+on|going\s+forward"
    r"|before\s+(?:you|committing|pushing|merging|reporting|saying|telling|each|every|any))\b"
    r"|以后|今后|每次|始终|一律|从现在",
    re.IGNORECASE,
)
# A restriction: a scope instruction needs a carrier that still restricts (or forbids).
_SCOPE_CUE = re.compile(
    r"\b(?:only|just|solely|exclusively|alone|limit\w*|restrict\w*|nothing\s+(?:outside|else|but)"
    r"|no\s+other|except|stick\w*\s+to|confined|within|max|maximum|at\s+most|up\s+to|cap"
    r"|capped|no\s+more\s+than)\b|只|仅|限于|以内|之内|不超过|最多",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
# The verb a negation applies to: "never hold", "do not add", "don't expose".
_NEGATED_VERB = re.compile(
    r"\b(?:never|not|don['’]?t|doesn['’]t|mustn['’]t|shouldn['’]t|avoid|stop)\s+(?:\w+ly\s+)?"
    r"([a-z]+)",
    re.IGNORECASE,
)
# A negation is also said with the opposite verb: "never hold the lock" is kept by
# "releases the lock", "do not export it" by "made it unexported".
_OPPOSITES = (
    ("hold", "release"), ("add", "remove"), ("add", "drop"), ("include", "exclude"),
    ("enable", "disable"), ("allow", "forbid"), ("allow", "block"), ("allow", "deny"),
    ("keep", "drop"), ("keep", "remove"), ("keep", "delete"), ("expose", "hide"),
    ("export", "unexport"), ("lock", "unlock"), ("use", "avoid"), ("change", "keep"),
    ("change", "preserve"), ("modify", "keep"), ("touch", "leave"), ("push", "hold"),
    ("retry", "fail"), ("block", "release"), ("create", "reuse"), ("write", "reuse"),
)  # fmt: skip
_OPPOSITE: dict[str, frozenset[str]] = {}
for _a, _b in _OPPOSITES:
    _OPPOSITE[stem(_a)] = _OPPOSITE.get(stem(_a), frozenset()) | {stem(_b)}
    _OPPOSITE[stem(_b)] = _OPPOSITE.get(stem(_b), frozenset()) | {stem(_a)}


def _opposed(negated: frozenset[str], words: frozenset[str]) -> bool:
    """Whether the sentence holds the opposite of a verb the instruction negates."""
    return any(not _OPPOSITE.get(verb, frozenset()).isdisjoint(words) for verb in negated)


class _Sentence:
    """One sentence of a summary: its English words at once (they index the summary),
    the rest on first use (most sentences are never a candidate)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.words = frozenset(en_words(text))

    @functools.cached_property
    def lowered(self) -> str:
        return self.text.lower()

    @functools.cached_property
    def tokens(self) -> frozenset[str]:
        return frozenset(_TOKEN.findall(self.lowered))

    @functools.cached_property
    def grams(self) -> frozenset[str]:
        return _cjk_grams(self.text) if not self.text.isascii() else frozenset()

    @functools.cached_property
    def negative(self) -> bool:
        return is_negative(self.text)

    @functools.cached_property
    def rule(self) -> bool:
        return _RULE_CUE.search(self.text) is not None

    @functools.cached_property
    def scope(self) -> bool:
        return _SCOPE_CUE.search(self.text) is not None

    @functools.cached_property
    def squashed(self) -> str:
        return squash(self.text)


@dataclass(frozen=True)
class _SummaryView:
    squashed: str
    sentences: tuple[_Sentence, ...]
    # English content word -> the sentences holding it (in order)
    by_word: dict[str, tuple[int, ...]]

    @functools.cached_property
    def shingles(self) -> frozenset[str]:
        return frozenset(_shingles(self.squashed.split(" ")))

    @functools.cached_property
    def tokens(self) -> frozenset[str]:
        return frozenset(self.squashed.split(" "))

    @functools.cached_property
    def by_gram(self) -> dict[str, tuple[int, ...]]:
        """Chinese character bigram -> the sentences holding it (built on first use)."""
        found: dict[str, list[int]] = {}
        for index, sentence in enumerate(self.sentences):
            for gram in sentence.grams:
                found.setdefault(gram, []).append(index)
        return {g: tuple(i) for g, i in found.items()}

    def candidates(self, readings: tuple[_About, ...]) -> list[_Sentence]:
        """The sentences that can carry an instruction read as ``readings``: a reading
        with words needs one of them (half, and at least one): an English word, or a
        bigram of a Chinese one; a reading without words (keys only), or a Chinese one
        in an English summary (compared by its keys), may be carried by any."""
        if any(not r.words or (r.chinese and not self.by_gram) for r in readings):
            return list(self.sentences)
        found: set[int] = set()
        for word in (w for r in readings for w in r.words):
            if word.isascii():
                found.update(self.by_word.get(word, ()))
            else:
                for gram in bigrams(word) or {word}:
                    found.update(self.by_gram.get(gram, ()))
        return [self.sentences[i] for i in sorted(found)]


@functools.lru_cache(maxsize=4096)
def _squashed(text: str) -> str:
    """:func:`squash` of an instruction: judged again at every compaction that inherits it."""
    return squash(text)


def _shingles(tokens: list[str]) -> set[str]:
    """The word trigrams of ``tokens`` (words without spaces), each as one string: a
    string is not tracked by the cyclic garbage collector, a tuple is (a summary's
    trigrams were most of what its first pass after an audit walked)."""
    return {f"{a} {b} {c}" for a, b, c in zip(tokens, tokens[1:], tokens[2:], strict=False)}


def _near_verbatim(squashed: str, view: _SummaryView, shortest: int = 5) -> bool:
    """Whether 80% of the word trigrams of ``squashed`` (at least ``shortest`` words) are
    in the summary. Most instructions lack many of their words there: that is settled on
    the summary's words before its trigrams are built."""
    tokens = squashed.split(" ")
    if len(tokens) < shortest:
        return False
    present = sum(1 for t in tokens if t in view.tokens)
    if present < VERBATIM_SHARE * len(tokens):
        return False  # a missing word breaks up to three trigrams: 80% cannot be reached
    own = _shingles(tokens)
    return len(own & view.shingles) >= VERBATIM_SHARE * len(own)


def _cjk_grams(text: str) -> frozenset[str]:
    grams: set[str] = set()
    for run in CJK_RUN.findall(text):
        grams |= bigrams(run)
    return frozenset(grams)


@functools.lru_cache(maxsize=32)
def _summary_view(summary: str) -> _SummaryView:
    """Everything the survival test needs from one summary, computed once per summary."""
    sentences = [_Sentence(summary[start:end]) for start, end in summary_sentences(summary)]
    by_word: dict[str, list[int]] = {}
    for index, sentence in enumerate(sentences):
        for word in sentence.words:
            by_word.setdefault(word, []).append(index)
    return _SummaryView(
        squash(summary), tuple(sentences), {w: tuple(i) for w, i in by_word.items()}
    )


def _key_in(key: str, sentence: _Sentence) -> bool:
    """A key is named when it occurs in the sentence, ignoring case, or its core does
    (``src/a/model.py`` -> ``model.py``; ``parse()`` -> ``parse``)."""
    lowered = key.lower()
    if _TOKEN.fullmatch(lowered):
        return lowered in sentence.tokens  # "3" is not found in "v1.23"
    if lowered in sentence.lowered:
        return True
    core = lowered.split("(", 1)[0].rstrip("/")
    if core and len(core) > 1 and core in sentence.lowered:
        return True
    basename = core.replace("\\", "/").rsplit("/", 1)[-1]
    return "/" in core and len(basename) > 2 and basename in sentence.lowered


def _zh_word_in(word: str, sentence: _Sentence) -> bool:
    """A Chinese word is named when it occurs, or two thirds of its bigrams do."""
    if word in sentence.text:
        return True
    grams = bigrams(word)
    return len(word) >= 3 and len(grams & sentence.grams) >= _BIGRAM_SHARE * len(grams)


def _share(found: int, total: int) -> float:
    return found / total if total else 1.0


@dataclass(frozen=True, slots=True)
class _About:
    """What a reading of an instruction names (key entities, content words) and what
    force it has: negative, a restriction (scope), or lasting (persistent)."""

    negative: bool
    keys: tuple[str, ...]
    words: tuple[str, ...]
    scope: bool
    persistent: bool
    # stems of the verbs a negation applies to ("never hold" -> "hold")
    negated: frozenset[str]
    # its words are all Chinese
    chinese: bool
    # its English words, and its Chinese ones (matched apart)
    en: frozenset[str]
    zh: tuple[str, ...]


@functools.lru_cache(maxsize=4096)
def _about(text: str) -> _About:
    keys, words = about(text)
    return _About(
        is_negative(text),
        keys,
        words,
        _SCOPE_CUE.search(text) is not None,
        _PERSISTENT.search(text) is not None,
        frozenset(stem(m.group(1).lower()) for m in _NEGATED_VERB.finditer(text)),
        bool(words) and all(not w.isascii() for w in words),
        frozenset(w for w in words if w.isascii()),
        tuple(w for w in words if not w.isascii()),
    )


def _readings(constraint: Constraint, also: tuple[str, ...]) -> tuple[_About, ...]:
    """The instruction's own clause, then its whole text when longer: a summary may keep
    either ("do not change the public API of the parser" without the names listed after
    it; "Use only the csv module, no pandas" as "csv module (no pandas)"); then what it
    refers to (``also``: the title of a chosen option)."""
    readings: list[_About] = []
    for text in (constraint.core or constraint.text, constraint.text, *also):
        reading = _about(text)
        if reading not in readings and (reading.keys or reading.words):
            readings.append(reading)
    return tuple(readings)


def _score(constraint: _About, sentence: _Sentence) -> float | None:
    """The share of the reading's keys and words the sentence names, or None when too
    few of either are there or the polarity or force differs.

    A negative reading needs a negative or restricting sentence ("never write a BOM by
    default" / "BOM only with --excel"), or one with the opposite of the negated verb
    ("never hold c.mu while calling the origin" / "Get releases c.mu around the origin
    fetch"); a restricting one a restricting sentence ("only touch src/cache/" / "edits
    limited to src/cache/"); a lasting one a sentence that reads as a rule."""
    # the words first: set look-ups, and most candidate sentences fail there
    words = len(constraint.en & sentence.words) + sum(
        1 for w in constraint.zh if _zh_word_in(w, sentence)
    )
    if constraint.chinese and words == 0 and not sentence.grams:
        # a Chinese instruction, an English summary: only its keys can be compared
        # ("重试最多 3 次，单次等待上限 8 秒" / "max 3 retries, capped at 8 s")
        keys = sum(1 for k in constraint.keys if _key_in(k, sentence))
        if len(constraint.keys) >= 2 and keys == len(constraint.keys):
            return 1.0 if _forceful(constraint, sentence) else None
        return None
    if _share(words, len(constraint.words)) < WORD_SHARE:
        return None
    keys = sum(1 for k in constraint.keys if _key_in(k, sentence))
    if keys + words == 0 or _share(keys, len(constraint.keys)) < KEY_SHARE:
        return None
    if words + keys < 2 and len(constraint.words) + len(constraint.keys) >= 2:
        return None  # one shared word is chance
    if not _forceful(constraint, sentence):
        return None
    return (keys + words) / (len(constraint.keys) + len(constraint.words))


def _forceful(constraint: _About, sentence: _Sentence) -> bool:
    """Whether the sentence keeps the reading's polarity and force (see :func:`_score`)."""
    if constraint.negative and not (
        sentence.negative or sentence.scope or _opposed(constraint.negated, sentence.words)
    ):
        return False
    if constraint.scope and not constraint.negative and not sentence.scope:
        return False
    return not (constraint.persistent and not sentence.rule)


def judge_survival(constraint: Constraint, summary: str, also: tuple[str, ...] = ()) -> Verdict:
    """What became of ``constraint`` in ``summary`` (see the module docstring).

    ``also``: texts the instruction stands for, judged as other readings of it (the
    title of the option a "let's go with option 1" chose).
    """
    view = _summary_view(summary)
    squashed = _squashed(constraint.text)
    if squashed and squashed in view.squashed:
        return Verdict(Survival.KEPT, None, 1.0)
    if _near_verbatim(squashed, view):
        return Verdict(Survival.KEPT, None, 1.0)
    readings = _readings(constraint, also)
    best: tuple[float, str] | None = None
    for sentence in view.candidates(readings):
        for reading in readings:
            score = _score(reading, sentence)
            if score is not None and (best is None or score > best[0]):
                best = (score, sentence.text)
    if best is None:
        return Verdict(Survival.LOST, None, 0.0)
    return Verdict(Survival.REWORDED, best[1], best[0])


def constraint_survives(constraint: Constraint, summary: str) -> Survival:
    """Whether ``summary`` carries ``constraint``: KEPT, REWORDED or LOST."""
    return judge_survival(constraint, summary).survival


def text_carried(sentence: str, summary: str) -> bool:
    """Whether ``summary`` repeats ``sentence`` (near-)verbatim: a later summary that
    copies an earlier summary's wording of an instruction still carries it."""
    view = _summary_view(summary)
    squashed = _squashed(sentence)
    if not squashed:
        return False
    if squashed in view.squashed:
        return True
    return _near_verbatim(squashed, view, shortest=3)


def normal_form(text: str) -> str:
    """The text compared case- and space-insensitively (NFKC): one instruction said twice
    in different case or spacing is one instruction."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def still_carried(text: str, summary: str) -> bool:
    """True when ``summary`` carries the instruction ``text`` (verbatim or reworded).

    Text with no instruction form in it is compared as a whole, verbatim.
    """
    constraints = extract_constraints(text)
    if not constraints:
        return normal_form(text) in normal_form(summary)
    return all(constraint_survives(c, summary) is not Survival.LOST for c in constraints)
