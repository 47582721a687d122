"""The embedding scorer with the real bundled MiniLM model (the ``embed`` extra)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ctxkeep.scorers.base import Candidate, ScoreRequest
from ctxkeep.scorers.embedding import MAX_CHARS, EmbeddingScorer, embedding_available

pytestmark = pytest.mark.skipif(
    not embedding_available(), reason="the 'embed' extra is not installed"
)

TASK = "fix the crash of the parser on nested brackets"
MESSAGES = (
    "The parser in src/parser.py crashes when brackets are nested three deep.",
    "ok sounds good",
    "Traceback (most recent call last): ParserError: unbalanced bracket at line 3",
    "anyone up for lunch?",
)


def _request(texts: tuple[str, ...]) -> ScoreRequest:
    return ScoreRequest(TASK, "", tuple(Candidate(i, t, len(texts)) for i, t in enumerate(texts)))


def test_relevant_messages_outscore_chatter() -> None:
    scores = EmbeddingScorer().score(_request(MESSAGES))
    values = [s.value for s in scores]
    assert all(s.is_valid() for s in scores)
    assert max(values) == 1.0
    # the bug report and the traceback both beat the chatter
    assert min(values[0], values[2]) > max(values[1], values[3])


def test_deterministic_and_long_text_is_cut() -> None:
    long = "parser bracket " * 100_000
    first = EmbeddingScorer().score(_request((long, "lunch")))
    again = EmbeddingScorer().score(_request((long[:MAX_CHARS], "lunch")))
    assert [s.value for s in first] == pytest.approx([s.value for s in again])


def test_empty_batch() -> None:
    assert EmbeddingScorer().score(_request(())) == []


def test_loads_offline_and_prints_nothing() -> None:
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('network is cut for this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "from ctxkeep.scorers.base import Candidate, ScoreRequest\n"
        "from ctxkeep.scorers.embedding import EmbeddingScorer\n"
        "r = ScoreRequest('parser', '', (Candidate(0, 'parser bug', 1),))\n"
        "assert EmbeddingScorer().score(r)[0].value == 1.0\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr == ""
