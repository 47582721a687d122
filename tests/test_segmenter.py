"""The lazy-dictionary segmenter cuts exactly as rjieba does on jieba's whole dictionary."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import rjieba
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.extract import _segmenter
from ctxkeep.extract._segmenter import DICTIONARY, _LazyDictionary, _Segmenter
from ctxkeep.extract._text import CJK_RUN

_LINES = DICTIONARY.read_bytes().decode().splitlines()
_WORDS = [line.split()[0] for line in _LINES[1:]]
# common characters, and the edges of the CJK class (rare, unknown to the dictionary)
_CHARACTERS = [*sorted({c for w in _WORDS[::50] for c in w}), "\u3400", "\u9fff", "\uf900"]

_pieces = st.one_of(
    st.sampled_from(_WORDS), st.text(st.sampled_from(_CHARACTERS), min_size=1, max_size=6)
)
_runs = st.lists(_pieces, min_size=1, max_size=8).map("".join)

# one segmenter for every example: words given for earlier texts stay in it
_SHARED = _Segmenter()


@settings(max_examples=400, deadline=None)
@given(_runs)
def test_the_lazy_cut_is_rjiebas_cut(run: str) -> None:
    assert _SHARED.cut(run) == rjieba.cut(run)
    assert _Segmenter().cut(run) == rjieba.cut(run)


@pytest.mark.parametrize(
    ("run", "words"),
    [
        ("不要修改公共接口", ["不要", "修改", "公共", "接口"]),
        ("公共接口不能修改", ["公共", "接口", "不能", "修改"]),
        ("错误信息必须保留原始行号和列号", None),
    ],
)
def test_known_sentences(run: str, words: list[str] | None) -> None:
    assert _Segmenter().cut(run) == (words or rjieba.cut(run))


def test_past_the_lazy_budget_the_whole_dictionary_cuts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_segmenter, "LAZY_CHARACTERS", 10)
    segmenter = _Segmenter()
    first, second = "不要修改公共接口", "必须保留原始行号和列号"
    assert segmenter.cut(first) == rjieba.cut(first)
    assert segmenter._whole is None
    assert segmenter.cut(second) == rjieba.cut(second)
    assert segmenter._whole is not None


@pytest.mark.parametrize("content", [None, b"", b"not a dictionary\n"])
def test_without_its_dictionary_file_rjieba_cuts(tmp_path: Path, content: bytes | None) -> None:
    """A missing or damaged data file (a broken install) costs time, never the cut."""
    path = tmp_path / "jieba-words.txt"
    if content is not None:
        path.write_bytes(content)
    segmenter = _Segmenter(path)
    assert segmenter.cut("不要修改公共接口") == ["不要", "修改", "公共", "接口"]
    assert segmenter._whole is not None


def test_a_short_text_does_not_build_the_whole_dictionary() -> None:
    """The point of the module: rjieba's package (which builds jieba's 349k-word
    dictionary on import) is not imported for a few Chinese words."""
    code = (
        "import sys\n"
        "from ctxkeep.extract._words import zh_words\n"
        "print(zh_words('不要修改公共接口'), 'rjieba' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "('公共', '接口') False"


def test_the_dictionary_file() -> None:
    dictionary = _LazyDictionary(DICTIONARY)
    assert _LINES[0].startswith("# total ")
    assert dictionary.total == 60_101_964
    encoded = [w.encode() for w in _WORDS]
    assert encoded == sorted(set(encoded)), "sorted by UTF-8 bytes, each word once"
    assert all(CJK_RUN.fullmatch(w) for w in _WORDS)
    assert dictionary.words_at("公共接口", 0) == [("公", 5628), ("公共", 4271)]
    assert dictionary.words_at("\ue000", 0) == []


def test_threads_share_one_segmenter() -> None:
    """An MCP server may audit in threads: words given by one never reach the other
    half-done (one rjieba object takes add_word and cut)."""
    from concurrent.futures import ThreadPoolExecutor

    segmenter = _Segmenter()
    runs = [w + v for w in _WORDS[1000:1040] for v in ("公共接口", "不能修改")]
    with ThreadPoolExecutor(4) as pool:
        cuts = list(pool.map(segmenter.cut, runs))
    assert cuts == [rjieba.cut(r) for r in runs]
