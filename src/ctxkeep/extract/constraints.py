"""Standing constraints in user text, and whether a summary still carries them.

A constraint is found by its form: an imperative negation (do not, don't, never, 不要, 别,
禁止, 不得, 切勿), a standing requirement (must, always, make sure, 必须, 务必, 一定要, 始终)
or a scope restriction (only, just, 只, 仅, 只准, 只能). Each marker is checked by the named
filters of :mod:`ctxkeep.extract.filters` (questions, epistemic "must", "only 3 tests",
narrative "I just looked", ...). The constraint is its clause, up to the next constraint
clause of the sentence, with its entity words (the object: file, API, command) and the
hard identifiers inside it.

Chinese entity words use CJK character runs and bigrams, not a segmenter. Evidence
(DEPENDENCIES.md, measured here): jieba segments 0.45 M chars/s (about 1.3 MB/s of UTF-8
Chinese, far below the 50 MB/s the auditor needs) and costs 42 MB and 0.8 s to load;
rjieba is fast (13.6 M chars/s) but is a compiled dependency, and both cut words by a
dictionary that need not agree between the user's sentence and the summary's rewording
(the measured segmentation splits 列号 into 列 / 号 but keeps 行号 whole). A run of
characters between markers, verbs and particles, matched by its bigrams, needs no
dependency, no load time, and tolerates a one-character difference in a long run. So no
segmenter earns its place here.

Speed: constraints are only extracted from real user text, a small part of a log. A text
with none of the marker strings (a few ``in`` tests on the lower-cased text) is rejected
before any regular expression runs.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import StrEnum

from ctxkeep.extract._text import (
    ASCII_WORD,
    CJK_RUN,
    bigrams,
    cjk_bigrams,
    clause_starts,
    normalise_word,
    sentence_spans,
    squash,
    word_set,
    words_of,
)
from ctxkeep.extract.filters import CONSTRAINT_FILTERS
from ctxkeep.extract.identifiers import Identifier, extract_identifiers

__all__ = [
    "Constraint",
    "ConstraintKind",
    "Survival",
    "constraint_survives",
    "extract_constraints",
    "is_objectless",
]


class ConstraintKind(StrEnum):
    NEGATION = "negation"
    REQUIREMENT = "requirement"
    SCOPE = "scope"


@dataclass(frozen=True, slots=True)
class Constraint:
    """A standing instruction as it stands in the source text.

    ``entities`` are the normalised object words (lower-case, singular English words;
    Chinese character runs) that must co-occur in a summary for it to survive;
    ``identifiers`` the hard identifiers inside it; ``start``/``end`` slice ``text``
    out of the input.
    """

    text: str
    kind: str
    entities: tuple[str, ...]
    identifiers: tuple[str, ...]
    start: int
    end: int


class Survival(StrEnum):
    KEPT = "kept"
    REWORDED = "reworded"
    LOST = "lost"


_MARKER = re.compile(
    r"(?P<negation>\b(?:do\s{1,4}not|don['’]t|dont|never|must\s{1,4}not|mustn['’]t|should\s{1,4}not"
    r"|shouldn['’]t|avoid)\b|不要|切勿|禁止|不得|不许|不准|请勿|严禁|别)"
    r"|(?P<requirement>\b(?:must|always|make\s{1,4}sure|ensure|be\s{1,4}sure\s{1,4}to|remember\s{1,4}to)\b"
    r"|必须|务必|一定要|始终|确保)"
    r"|(?P<scope>\b(?:only|just|solely|exclusively)\b|只准|只能|只许|仅限|只|仅)",
    # ASCII: case folding and \b as in English (no long-s folding, and "请only" splits)
    re.IGNORECASE | re.ASCII,
)
# Every marker contains one of these hints (in the lower-cased text for ASCII ones).
_ASCII_HINTS = ("not", "n't", "n’t", "dont", "never", "must", "always", "sure", "avoid",
                "remember", "only", "just", "solely", "exclusively")  # fmt: skip
_CJK_HINTS = ("不要", "勿", "禁止", "不得", "不许", "不准", "严禁", "别", "必须", "务必",
              "一定要", "始终", "确保", "只", "仅")  # fmt: skip
_ASCII_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# A marker starts at most this far before its hint ("should  not": the hint is "not").
_MARKER_REACH = 16


def _hint_windows(text: str) -> list[tuple[int, int]]:
    """Merged spans around every hint occurrence, found with ``str.find`` (C speed)."""
    lowered = text.lower()
    spans: list[tuple[int, int]] = []
    for haystack, hints in ((lowered, _ASCII_HINTS), (text, () if text.isascii() else _CJK_HINTS)):
        for hint in hints:
            index = haystack.find(hint)
            while index >= 0:
                spans.append((max(0, index - _MARKER_REACH), index + len(hint) + _MARKER_REACH))
                index = haystack.find(hint, index + 1)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _marker_matches(text: str) -> list[re.Match[str]]:
    """The matches of :data:`_MARKER` in ``text``, as one full scan would find them.

    Python's ``re`` pays per position and per alternative (about 2 MB/s for this
    pattern here), so the pattern runs only in windows around hints found by
    ``str.find``; each window is widened to a word end, so ``\\b`` at its edge is real.
    """
    if len(text.lower()) != len(text):  # rare case-mappings that change length
        return list(_MARKER.finditer(text))
    length = len(text)
    found: list[re.Match[str]] = []
    for start, window_end in _hint_windows(text):
        end = min(window_end, length)
        while end < length and text[end] in _ASCII_WORD_CHARS:
            end += 1
        for match in _MARKER.finditer(text, start, end):
            if found and match.start() < found[-1].end():
                continue
            found.append(match)
    return found


# ----------------------------------------------------------------------------- entities

_STOPWORDS = words_of(
    # function words
    "a an the this that these those there here it its it's i me my we us our you your he him "
    "his she her they them their what which who whom whose when where why how all any both "
    "each every few more most other some such no nor not only own same so than too very just "
    "can will would shall should must may might could need needs ought do does did done doing "
    "don't dont be is am are was were been being have has had having to of in on at by for "
    "with about against between into through during before after above below from up down "
    "out off over under again further then once and but or if because as until while also "
    "never always ever sure make please pls kindly remember avoid ensure solely exclusively "
    "unless without within via per etc e.g i.e yes ok okay anything everything nothing "
    "something one ones thing things way instead rather even still yet already now later "
    "first last next new old existing current same different own whole entire full part "
    "free true false important careful original exact proper correct right specific relevant "
    "clear simple small large big directly immediately manually automatically quickly "
    "explicitly silently anymore"
    # generic verbs: the summary may reword the action, the object stays
    " change changes changed changing modify modified edit edited editing touch touched "
    "use used using run running ran add added adding remove removed removing delete deleted "
    "write written writing commit committed push pushed call called make made keep kept "
    "leave left break rename create created update updated install installed import move "
    "read open close return print log fix fixed refactor refactoring put get got give take "
    "let try want like know think see look go going come work working mention mentioned "
    "say said tell told ask asked check checked apply applied include included introduce "
    "replace replaced rewrite rewritten alter altered committing merging pushing deleting "
    "modifying touching adding removing"
)
_ZH_SPLITTERS = sorted(
    words_of(
        # markers
        "不要 切勿 禁止 不得 不许 不准 请勿 严禁 必须 务必 一定要 一定 始终 确保 "
        "只准 只能 只许 仅限 只 仅 勿 别 "
        # verbs: the summary may reword the action
        "修改 改动 更改 改变 变更 删除 删掉 移除 去掉 添加 增加 新增 加入 使用 提交 推送 运行 执行 "
        "调用 编辑 创建 保留 保持 写入 引入 升级 降级 安装 重命名 合并 覆盖 替换 重构 处理 输出 "
        "打印 返回 动用 触碰 碰 "
        # function words and vague modifiers
        "的 了 和 与 及 或 把 被 请 你 您 我们 我 他们 并且 而且 并 也 都 就 再 还 又 吗 呢 吧 啊 "
        "这个 那个 这些 那些 任何 所有 一个 一些 随便 随意 直接 已经 现在 以后 之后 之前 以前 "
        "进行 一下 自己 其他 其它 不 没有 可以 需要 应该 时候 一律 统一 全部 一概 它们 它 里"
    ),
    key=len,
    reverse=True,
)
_ZH_SPLIT = re.compile("|".join(_ZH_SPLITTERS))
# One-character verbs stripped from the head of a run: 改接口 -> 接口
_ZH_VERB_HEAD = frozenset("用改写动删加跑提推装换")
_MAX_ENTITIES = 4
# a Chinese run is present when this share of its bigrams is (one character may differ)
_BIGRAM_SHARE = 2 / 3


def _cjk_entities(text: str) -> list[tuple[int, str]]:
    """Chinese runs cut at markers, verbs and particles.

    错误信息必须保留原始行号 -> 错误信息, 原始行号.
    """
    found: list[tuple[int, str]] = []
    for run in CJK_RUN.finditer(text):
        pieces: list[tuple[int, int]] = []
        position = run.start()
        for separator in _ZH_SPLIT.finditer(text, run.start(), run.end()):
            pieces.append((position, separator.start()))
            position = separator.end()
        pieces.append((position, run.end()))
        for piece_start, end in pieces:
            start = piece_start
            if end - start > 2 and text[start] in _ZH_VERB_HEAD:
                start += 1
            if end - start >= 2:
                found.append((start, text[start:end]))
    return found


def _entities(text: str, marker_offset: int, identifiers: list[Identifier]) -> tuple[str, ...]:
    """Object words of a constraint: after the marker first (the direct object), then before."""
    for identifier in identifiers:  # blank them out: their words are not entity words
        text = f"{text[: identifier.start]}{' ' * len(identifier.text)}{text[identifier.end :]}"
    words: list[tuple[int, str]] = []
    fallback: list[tuple[int, str]] = []
    for match in ASCII_WORD.finditer(text):
        word = normalise_word(match.group())
        if len(word) < 2 or word in _MARKER_WORDS:
            continue
        if word in _STOPWORDS:
            if word not in _FUNCTION_WORDS:
                fallback.append((match.start(), word))
            continue
        words.append((match.start(), word))
    if not text.isascii():
        words.extend(_cjk_entities(text))
    if not words and not identifiers:
        words = fallback
    after = sorted(p for p in words if p[0] >= marker_offset)
    before = sorted(p for p in words if p[0] < marker_offset)
    chosen: list[str] = []
    for _, word in after + before:
        if word not in chosen:
            chosen.append(word)
        if len(chosen) == _MAX_ENTITIES:
            break
    return tuple(chosen)


_MARKER_WORDS = words_of("not don't dont never must mustn't always only just")
_FUNCTION_WORDS = frozenset(
    w
    for w in _STOPWORDS
    if w
    not in words_of(
        "change modify edit touch use run add remove delete write commit push call make keep "
        "leave break rename create update install import move read open close return print "
        "log fix refactor give take try want check apply include replace rewrite alter"
    )
)


def is_objectless(entities: tuple[str, ...], identifiers: tuple[str, ...]) -> bool:
    """``Don't!`` / ``Never again.`` / ``只能这样``: a marker with nothing it applies to.

    With no object word and no identifier nothing could show that a summary carries it.
    """
    return not entities and not identifiers


# --------------------------------------------------------------------------- extraction


def extract_constraints(text: str) -> list[Constraint]:
    """The standing constraints of ``text`` (user text), in order."""
    markers = _marker_matches(text)
    if not markers:
        return []
    constraints: list[Constraint] = []
    index = 0
    for sentence_start, sentence_end in sentence_spans(text):
        # markers of this sentence
        while index < len(markers) and markers[index].start() < sentence_start:
            index += 1
        inside: list[re.Match[str]] = []
        while index < len(markers) and markers[index].end() <= sentence_end:
            inside.append(markers[index])
            index += 1
        if inside:
            constraints.extend(_sentence_constraints(text, sentence_start, sentence_end, inside))
    return constraints


def _sentence_constraints(
    text: str, start: int, end: int, markers: list[re.Match[str]]
) -> list[Constraint]:
    # the clause handed to the filters runs to the sentence end, terminator included,
    # so that a question mark is seen from every clause of the question
    tail = end + 1 if end < len(text) and text[end] in "?？" else end
    starts = clause_starts(text, start, end)
    accepted: list[tuple[int, re.Match[str]]] = []  # (clause start, first accepted marker)
    for marker in markers:
        clause_start = max(s for s in starts if s <= marker.start())
        if accepted and accepted[-1][0] == clause_start:
            continue
        clause = text[clause_start:tail]
        offset_start = marker.start() - clause_start
        offset_end = marker.end() - clause_start
        if any(f(clause, offset_start, offset_end) for f in CONSTRAINT_FILTERS):
            continue
        accepted.append((clause_start, marker))
    result: list[Constraint] = []
    for position, (clause_start, marker) in enumerate(accepted):
        clause_end = accepted[position + 1][0] if position + 1 < len(accepted) else end
        while clause_end > clause_start and text[clause_end - 1] in " \t\r\n,，:：;；":
            clause_end -= 1
        body = text[clause_start:clause_end]
        identifiers = extract_identifiers(body)
        identifier_texts = tuple(dict.fromkeys(i.text for i in identifiers))
        entities = _entities(body, marker.start() - clause_start, identifiers)
        if is_objectless(entities, identifier_texts):
            continue
        kind = marker.lastgroup or ConstraintKind.REQUIREMENT
        result.append(
            Constraint(body, str(kind), entities, identifier_texts, clause_start, clause_end)
        )
    return result


# ----------------------------------------------------------------------------- survival

_CUES = {
    ConstraintKind.NEGATION: re.compile(
        r"\b(?:not|no|never|don['’]?t|doesn['’]t|didn['’]t|mustn['’]t|shouldn['’]t|cannot"
        r"|can['’]t|won['’]t|without|avoid\w*|forbid\w*|prohibit\w*|refrain\w*|unchanged"
        r"|untouched|intact|preserv\w*|keep|leave)\b|不|别|禁|勿|无|避免|保持|保留",
        re.IGNORECASE,
    ),
    ConstraintKind.REQUIREMENT: re.compile(
        r"\b(?:must|always|require\w*|need(?:s|ed)?\s+to|ha(?:s|ve)\s+to|should|ensur\w*"
        r"|make\s+sure|mandatory|every\s+time)\b|必须|务必|一定|始终|总是|要求|需要|确保|应|都要",
        re.IGNORECASE,
    ),
    ConstraintKind.SCOPE: re.compile(
        r"\b(?:only|just|solely|exclusively|limit\w*|restrict\w*|nothing\s+(?:but|else)"
        r"|no\s+other|except)\b|只|仅|限",
        re.IGNORECASE,
    ),
}
# The same cues without IGNORECASE, for lower-cased ASCII text: the same matches there
# (every literal above is lower case) at two thirds of the cost.
_LOWER_CUES = {kind: re.compile(cue.pattern) for kind, cue in _CUES.items()}
# What every ASCII match of each cue holds, lower-cased: a sentence without any of them
# is settled by a few `in`s instead of a regex (a property test holds the two equal).
_CUE_STEMS = {
    ConstraintKind.NEGATION: ("no", "never", "don", "doesn", "didn", "mustn", "shouldn", "can",
                              "won", "without", "avoid", "forbid", "prohibit", "refrain",
                              "unchanged", "untouched", "intact", "preserv", "keep", "leave"),
    ConstraintKind.REQUIREMENT: ("must", "always", "require", "need", "has", "have", "should",
                                 "ensur", "make", "mandatory", "every"),
    ConstraintKind.SCOPE: ("only", "just", "solely", "exclusively", "limit", "restrict",
                           "nothing", "no", "except"),
}  # fmt: skip


def _ascii_cue_kinds(lowered: str) -> frozenset[str]:
    """The cue kinds in a lower-cased ASCII sentence (as ``_CUES`` would find them)."""
    return frozenset(
        str(kind)
        for kind, cue in _LOWER_CUES.items()
        if any(stem in lowered for stem in _CUE_STEMS[kind]) and cue.search(lowered)
    )


# near-verbatim: this share of the constraint's token trigrams appear in the summary
_VERBATIM_SHARE = 0.8
# Which cues can carry a constraint of each kind in a summary. A scope restriction is also
# stated as an exclusion: "use only the standard library csv module, no pandas" survives
# as "using the standard library csv module (no pandas)" (examples/openai, which a
# scope-cue-only rule reported as lost).
_CARRIED_BY: dict[str, frozenset[str]] = {
    ConstraintKind.NEGATION: frozenset({ConstraintKind.NEGATION}),
    ConstraintKind.REQUIREMENT: frozenset({ConstraintKind.REQUIREMENT}),
    ConstraintKind.SCOPE: frozenset({ConstraintKind.SCOPE, ConstraintKind.NEGATION}),
}


@dataclass(frozen=True, slots=True)
class _Window:
    text: str
    words: frozenset[str]
    grams: frozenset[str]
    kinds: frozenset[str]


@dataclass(frozen=True, slots=True)
class _SummaryView:
    squashed: str
    shingles: frozenset[tuple[str, ...]]
    windows: tuple[_Window, ...]


def _shingles(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)}


@functools.lru_cache(maxsize=32)
def _summary_view(summary: str) -> _SummaryView:
    """Everything the survival test needs from one summary, computed once per summary."""
    squashed = squash(summary)
    windows = []
    for start, end in sentence_spans(summary):
        sentence = summary[start:end]
        if sentence.isascii():
            kinds = _ascii_cue_kinds(sentence.lower())
        else:
            kinds = frozenset(str(k) for k, cue in _CUES.items() if cue.search(sentence))
        if not kinds:
            continue  # a sentence with no marker carries no constraint: never a window
        windows.append(_Window(sentence, word_set(sentence), cjk_bigrams(sentence), kinds))
    return _SummaryView(squashed, frozenset(_shingles(squashed.split(" "))), tuple(windows))


def _entity_in(entity: str, window: _Window) -> bool:
    if entity.isascii():
        return entity in window.words
    if entity in window.text:
        return True
    grams = bigrams(entity)
    return len(entity) >= 3 and len(grams & window.grams) >= _BIGRAM_SHARE * len(grams)


def _identifier_in(identifier: str, window: _Window) -> bool:
    if identifier in window.text:
        return True
    core = identifier.split("(", 1)[0].rstrip("/")
    if core and core in window.text:
        return True
    basename = core.replace("\\", "/").rsplit("/", 1)[-1]
    return "/" in core and len(basename) > 2 and basename in window.text


def constraint_survives(constraint: Constraint, summary: str) -> Survival:
    """Whether ``summary`` carries ``constraint``: KEPT (near-)verbatim, REWORDED (the same
    kind of marker and every entity word and identifier in one sentence), else LOST."""
    view = _summary_view(summary)
    squashed = squash(constraint.text)
    if squashed and squashed in view.squashed:
        return Survival.KEPT
    tokens = squashed.split(" ")
    own = _shingles(tokens)
    near_verbatim = len(tokens) >= 5 and len(own & view.shingles) >= _VERBATIM_SHARE * len(own)
    # the rest of the sentence is there; the marker itself must be too
    carriers = _CARRIED_BY.get(constraint.kind, frozenset({constraint.kind}))
    if near_verbatim and any(carriers & w.kinds for w in view.windows):
        return Survival.KEPT
    for window in view.windows:
        if not carriers & window.kinds:
            continue
        if all(_entity_in(e, window) for e in constraint.entities) and all(
            _identifier_in(i, window) for i in constraint.identifiers
        ):
            return Survival.REWORDED
    return Survival.LOST
