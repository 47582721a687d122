"""What a constraint is about: its key entities and its content words (EN and ZH).

- **Keys** are what a rewording cannot change: hard identifiers (paths, versions,
  symbols, flags; :func:`ctxkeep.extract.extract_identifiers`), numbers, quoted or
  backticked words, and code-shaped names (``snake_case``, ``CamelCase``, ``Mod.fun``).
- **Content words** are what a rewording keeps in other forms: English words after
  Snowball (Porter 2) stemming, so ``cache``, ``caching`` and ``cached`` are one word;
  Chinese words cut by jieba's dictionary (the Rust port ``rjieba``), so ``公共接口不能修改``
  and ``不要修改公共接口`` share ``公共`` / ``接口``. Function words, the instruction markers
  themselves and generic verbs (change, use, 修改, 使用: the summary may reword the action,
  the object stays) are not content words.

Why these two libraries (docs/judgement-constraints.md has the figures): PyStemmer is the
Snowball project's own C stemmer (imports in 6 ms; the pure-Python ``snowballstemmer``
imports all its 35 languages, 20-50 ms, and gives the same stems); ``rjieba`` segments
13.6 M chars/s, where jieba is 30x slower and takes 0.8 s to load. rjieba builds jieba's
whole dictionary when imported (0.1-0.4 s); :mod:`ctxkeep.extract._segmenter` gives it only
the words of the text instead, and cuts the same.
"""

from __future__ import annotations

import functools
import re

import Stemmer

from ctxkeep.extract._segmenter import cut
from ctxkeep.extract._text import CJK_RUN, words_of
from ctxkeep.extract.identifiers import extract_identifiers

__all__ = ["about", "content_words", "en_words", "keys_of", "stem", "zh_words"]

_STEMMER = Stemmer.Stemmer("english")

# Function words, instruction markers and vague modifiers: never what an instruction is about.
_EN_STOPWORDS = words_of(
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
    "first last next new old existing current different whole entire full part "
    "important careful original exact exactly proper correct right specific relevant "
    "clear simple directly immediately manually automatically quickly explicitly silently "
    "anymore let let's lets like want wants i'd i'm i've we'd we're you're that's it's "
    "option ok fine good great thanks thank mind actually really quite bit lot lots "
    "told tell said say asked ask start time times btw thing things beginning begin began "
    "earlier before already twice very same around"
)
# Generic verbs, in any form: the summary may reword the action, the object stays.
_GENERIC_VERBS = words_of(
    "change modify edit touch use run add remove delete write commit push call keep "
    "leave break rename create update install import move read open close put get give take "
    "try go come work mention check apply include introduce replace rewrite alter stay stick "
    "prefer follow respect preserve maintain retain honour honor note limit restrict make "
    "made kept left ran wrote written took taken gave given got gotten went gone came done"
)
_ZH_STOPWORDS = words_of(
    # markers
    "不要 切勿 禁止 不得 不许 不准 请勿 严禁 必须 务必 一定要 一定 始终 确保 只准 只能 只许 仅限 "
    "记得 每次 以后 今后 应该 应当 一律 统一 避免 不能 不用 不再 尽量 最好 希望 我希望 优先 暂时 "
    "目前 现在 方案 选项 不对 错了 我说 说过 我说过 改回 还原 撤销 "
    # generic verbs
    "修改 改动 更改 改变 变更 删除 删掉 移除 去掉 添加 增加 新增 加入 使用 提交 推送 运行 执行 "
    "调用 编辑 创建 保留 保持 写入 引入 升级 降级 安装 重命名 合并 覆盖 替换 重构 处理 输出 "
    "打印 返回 动用 触碰 改成 放在 采用 改用 换成 别动 不动 别改 不改 动 改 "
    # function words and vague modifiers
    "我们 他们 你们 并且 而且 这个 那个 这些 那些 任何 所有 一个 一些 随便 随意 直接 已经 "
    "以后 之后 之前 以前 进行 一下 自己 其他 其它 没有 可以 需要 时候 全部 一概 它们 就是 "
    "还是 或者 以及 然后 因为 所以 如果 但是 不过 这样 那样 怎么 什么 一样 就行 就够 够了"
)
# Markers and verbs that the English content words must not count either.
_NUMBER = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w.])")
_QUOTED = re.compile(
    r"`([^`\n]{1,80})`|\"([^\"\n]{1,80})\"|“([^”\n]{1,80})”"
    r"|(?<![A-Za-z])'([^'\n\s][^'\n]{0,78}[^'\n\s])'(?![A-Za-z])"
)
# snake_case, camelCase / PascalCase with two humps or more, CONSTANT_CASE
_CODE_NAME = re.compile(
    r"\b(?:[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Z]?[a-z0-9]+(?:[A-Z][a-z0-9]+)+)\b"
)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball stem of a lower-case English word (``caching`` -> ``cach``)."""
    return str(_STEMMER.stemWord(word))


_VERB_STEMS = frozenset(stem(w) for w in _GENERIC_VERBS)


_PART = re.compile(r"[a-z]+(?:'[a-z]+)?")


@functools.lru_cache(maxsize=65536)
def _content_stem(word: str) -> str:
    """The stem of a lower-case word when it is a content word, else ``""``."""
    word = word[:-2] if word.endswith("'s") else word
    if len(word) < 2 or word in _EN_STOPWORDS:
        return ""
    stemmed = stem(word)
    return "" if stemmed in _VERB_STEMS else stemmed  # "changes", "changing" as "change"


def en_words(text: str) -> list[str]:
    """Stems of the English content words of ``text``, in order; a hyphenated or
    snake_case word counts by its parts (``unclosed-parenthesis`` -> ``unclos``,
    ``parenthesi``)."""
    # one findall over the whole text, one cached lookup per word: summaries are long
    stems = map(_content_stem, _PART.findall(text.lower().replace("’", "'")))
    return [s for s in stems if s]


@functools.lru_cache(maxsize=8192)
def zh_words(text: str) -> tuple[str, ...]:
    """The Chinese content words of ``text``: runs cut by the segmenter, stopwords out.

    Single characters are kept only when nothing longer is found: they match too much.
    """
    words: list[str] = []
    for run in CJK_RUN.findall(text):
        for word in cut(run):
            if len(word) >= 2 and word not in _ZH_STOPWORDS:
                words.append(word)
    return tuple(dict.fromkeys(words))


def content_words(text: str) -> tuple[str, ...]:
    """English stems and Chinese words of ``text``, in order, each once."""
    words = en_words(text)
    if not text.isascii():
        words.extend(zh_words(text))
    return tuple(dict.fromkeys(words))


def _key_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, key)`` of the key entities of ``text`` (see :func:`keys_of`)."""
    found: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for identifier in extract_identifiers(text):
        found.append((identifier.start, identifier.end, identifier.text))
        taken.append((identifier.start, identifier.end))
    for match in _QUOTED.finditer(text):
        inner = next(g for g in match.groups() if g is not None).strip()
        if inner and not _inside(match.start(), match.end(), taken):
            found.append((match.start(), match.end(), inner))
            taken.append((match.start(), match.end()))
    for pattern in (_CODE_NAME, _NUMBER):
        for match in pattern.finditer(text):
            if not _inside(match.start(), match.end(), taken):
                found.append((match.start(), match.end(), match.group()))
    found.sort()
    return [span for span in found if any(c.isalnum() for c in span[2])]


def _inside(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(s <= start and end <= e for s, e in spans)


def keys_of(text: str) -> tuple[str, ...]:
    """The key entities of ``text``: identifiers, numbers, quoted words, code names.

    Each as it stands in the text, in order of appearance, each once. A number inside an
    identifier (``1.21`` in ``go1.21``) is not a key of its own.
    """
    return tuple(dict.fromkeys(key for _, _, key in _key_spans(text)))


@functools.lru_cache(maxsize=4096)
def about(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(keys, content words)`` of ``text``; the words inside a key are not counted
    again as content words (``src/ctxkeep/log/model.py`` is one key, not five words)."""
    spans = _key_spans(text)
    keys = tuple(dict.fromkeys(key for _, _, key in spans))
    if not spans:
        return keys, content_words(text)
    pieces: list[str] = []
    position = 0
    for start, end, _ in spans:
        if start >= position:
            pieces.append(text[position:start])
            position = end
    pieces.append(text[position:])
    return keys, content_words(" ".join(pieces))
