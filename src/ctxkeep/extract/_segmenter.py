"""Chinese word segmentation: rjieba's cut, with jieba's dictionary read lazily.

rjieba (jieba's algorithm in Rust) builds jieba's whole dictionary, 349k words, when it
is imported: 0.39 G instructions, 0.2-0.4 s here, 5% of auditing the 26k-event benchmark
log, whose Chinese is two eight-character instructions. A hook that audits one
compaction pays it on every run.

So the first Chinese text of a process is cut by an *empty* rjieba segmenter that is
given only the dictionary words occurring in the text, with their frequencies, and one
filler word (a private-use character, never part of a CJK run) that carries the rest of
the dictionary's total frequency. jieba scores a cut by the frequencies of the words
inside the text and the dictionary's total, and its HMM for unknown words is built in, so
the cut is the same as rjieba's own (``tests/test_segmenter.py`` holds them equal on
random text). The words are found by binary search in a sorted copy of jieba's dictionary
(``data/jieba-words.txt``, see ``data/README.md``), about 0.1 ms per character; past
:data:`LAZY_CHARACTERS` characters the whole dictionary is built once, as rjieba does,
and cuts the rest.

rjieba's package builds its default segmenter when imported, so its extension module is
loaded on its own (:func:`_segmenter_class`); where that fails, the package is imported.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["LAZY_CHARACTERS", "cut"]

DICTIONARY = Path(__file__).resolve().parent / "data" / "jieba-words.txt"
# Characters cut with the lazy dictionary before the whole one is built: 2,000 take about
# 0.2 s of look-ups here, about what building the whole dictionary takes.
LAZY_CHARACTERS = 2000
# The longest word of jieba's dictionary, in characters.
_LONGEST = 16
# Carries the frequencies of the dictionary words not given: a private-use character.
_FILLER = "\ue000"


def _segmenter_class() -> Any:
    """rjieba's ``Jieba`` class, from its extension module alone when it can be found
    (the package's ``__init__`` builds a default segmenter on the whole dictionary)."""
    spec = importlib.util.find_spec("rjieba")
    folders = list(spec.submodule_search_locations or ()) if spec else []
    for folder in folders:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder) / f"rjieba{suffix}"
            if not path.is_file():
                continue
            name = "rjieba.rjieba"  # what the package itself imports: loaded once
            if name not in sys.modules:
                loader = importlib.machinery.ExtensionFileLoader(name, str(path))
                module_spec = importlib.util.spec_from_file_location(name, path, loader=loader)
                if module_spec is None:  # pragma: no cover - a file location always has one
                    break
                module = importlib.util.module_from_spec(module_spec)
                loader.exec_module(module)
                sys.modules[name] = module
            return sys.modules[name].Jieba
    import rjieba  # pragma: no cover - another layout of the package

    return rjieba.Jieba  # pragma: no cover


class _LazyDictionary:
    """jieba's dictionary words (CJK characters only), looked up in the sorted file."""

    def __init__(self, path: Path) -> None:
        self.data = path.read_bytes()
        self.first = self.data.index(b"\n") + 1  # after the "# total N" header
        self.total = int(self.data[: self.first].split()[2])

    def _lower_bound(self, key: bytes, low: int) -> int:
        """The start of the first line at or after ``low`` whose word is >= ``key``."""
        data = self.data
        high = len(data)
        while low < high:
            middle = (low + high) // 2
            start = max(data.rfind(b"\n", low, middle) + 1, low)
            space = data.index(b" ", start)
            if data[start:space] < key:
                low = data.index(b"\n", space) + 1
            else:
                high = start
        return low

    def words_at(self, text: str, start: int) -> list[tuple[str, int]]:
        """The dictionary words that begin at ``text[start]``, with their frequencies."""
        found: list[tuple[str, int]] = []
        low = self.first
        for end in range(start + 1, min(len(text), start + _LONGEST) + 1):
            key = text[start:end].encode()
            low = self._lower_bound(key, low)
            if low == len(self.data):
                break
            space = self.data.index(b" ", low)
            word = self.data[low:space]
            if word == key:
                frequency = int(self.data[space : self.data.index(b"\n", space)])
                found.append((text[start:end], frequency))
            elif not word.startswith(key):
                break  # no longer word begins with this prefix
        return found


class _Segmenter:
    def __init__(self, dictionary: Path = DICTIONARY) -> None:
        self._class = _segmenter_class()
        self._lazy = self._class.empty()
        self._given: set[str] = set()
        self._given_total = 0
        self._lazy_characters = 0
        self._whole: Any = None
        """jieba's whole dictionary, once built (then the lazy one is no longer read)."""
        self._dictionary: _LazyDictionary | None = None
        self._lock = threading.Lock()  # add_word and cut share one rjieba object
        try:
            self._dictionary = _LazyDictionary(dictionary)
        except (OSError, ValueError, IndexError):
            self._whole = self._class()  # the file is missing or damaged: rjieba's own

    def cut(self, run: str) -> list[str]:
        with self._lock:
            return self._cut(run)

    def _cut(self, run: str) -> list[str]:
        if self._dictionary is not None and self._lazy_characters + len(run) > LAZY_CHARACTERS:
            self._whole, self._dictionary = self._class(), None  # built once, as rjieba does
        if self._dictionary is None:
            return list(self._whole.cut(run))
        self._lazy_characters += len(run)
        for start in range(len(run)):
            for word, frequency in self._dictionary.words_at(run, start):
                if word not in self._given:
                    self._given.add(word)
                    self._given_total += frequency
                    self._lazy.add_word(word, frequency, None)
        self._lazy.add_word(_FILLER, self._dictionary.total - self._given_total, None)
        return list(self._lazy.cut(run))


@functools.cache
def _segmenter() -> _Segmenter:
    return _Segmenter()


def cut(run: str) -> list[str]:
    """jieba's cut of ``run``, a run of CJK characters (:data:`~ctxkeep.extract._text.CJK_RUN`),
    with its HMM for unknown words: what ``rjieba.cut(run)`` gives."""
    return _segmenter().cut(run)
