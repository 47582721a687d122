"""Issue 14, user regexes: --pin / pin_patterns run on RE2, in linear time, Unicode-aware."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxkeep.compactor import compact
from ctxkeep.compactor.pins import compile_pins
from tests.conftest import run_cli


def test_a_catastrophic_pin_does_not_hang_compact(tmp_path: Path) -> None:
    # --pin '(a+)+$' on a message of 5,000 `a` and a `!` hung compact/score
    messages = [{"role": "user", "content": "a" * 5000 + "!"}] + [
        {"role": "assistant", "content": f"reply {i} " + "b" * 300} for i in range(10)
    ]
    path = tmp_path / "in.json"
    path.write_text(json.dumps(messages))
    for command, extra in (("compact", ["--target-bytes", "2000"]), ("score", [])):
        done = run_cli(command, str(path), "--pin", "(a+)+$", *extra)
        assert done.returncode == 0, done.stderr


def test_the_library_refuses_what_re2_cannot_run_with_a_reason() -> None:
    pins, problems = compile_pins([r"(a)\1", r"(?<=x)y", "ok"])
    assert len(pins.user) == 1
    assert "back-references are not supported" in problems[0]
    assert "look-around is not supported" in problems[1]
    result = compact([{"role": "user", "content": "x"}], "t", target_bytes=1, pin_patterns=["("])
    assert any("pin_patterns[0] '('" in p for p in result.problems)


@pytest.mark.parametrize(
    ("pattern", "flags", "text"),
    [
        (r"^\w+$", "", "错误信息必须保留"),  # RE2's own \w is ASCII: this found nothing
        (r"\d{2}", "", "第１２行"),  # fullwidth digits are \d in Python
        (r"必须\s保留", "", "必须\u3000保留"),  # the ideographic space is \s
        (r"[\w.]+\.rs", "", "修复recover.rs"),
        (r"\W", "", "错 误"),
        ("todo", "i", "TODO: 修复"),
        ("a.b", "s", "a\nb"),
        ("^b", "m", "a\nb"),
        ("a b  # a comment", "x", "ab"),
    ],
)
def test_user_patterns_mean_what_they_mean_in_python(pattern: str, flags: str, text: str) -> None:
    import re

    py_flags = 0
    for letter, flag in (("i", re.I), ("m", re.M), ("s", re.S), ("x", re.X)):
        if letter in flags:
            py_flags |= flag
    assert re.search(pattern, text, py_flags)
    from ctxkeep.base.user_regex import compile_user_regex

    assert compile_user_regex(pattern, flags).search(text)


def test_a_chinese_pin_keeps_its_message() -> None:
    messages = [
        {"role": "user", "content": "任务：修复解析器"},
        *({"role": "assistant", "content": f"无关的输出 {i} " + "噪" * 200} for i in range(8)),
        {"role": "assistant", "content": "错误代码 E1234 必须保留"},
        *({"role": "assistant", "content": f"更多输出 {i} " + "噪" * 200} for i in range(8)),
    ]
    result = compact(
        messages, "修复", target_bytes=600, keep_recent=0, pin_patterns=[r"代码\s\w+\s必须\w+"]
    )
    assert any("E1234" in str(m.get("content")) for m in result.messages)


def test_a_user_pin_keeps_its_span_when_the_hard_budget_cuts_the_message() -> None:
    # hard mode keeps the spans that triggered a pin: a user pin's offsets come from RE2
    noise = " ".join(f"第{i}句无关的说明。" for i in range(60))
    pinned = f"{noise} 错误代码 E1234 必须保留。 {noise}"
    messages = [
        {"role": "user", "content": "任务：修复解析器"},
        *({"role": "assistant", "content": f"无关的输出 {i} " + "噪" * 200} for i in range(6)),
        {"role": "assistant", "content": pinned},
        {"role": "user", "content": "继续"},
    ]
    result = compact(
        messages,
        "修复",
        target_bytes=900,
        keep_recent=0,
        budget="hard",
        pin_patterns=[r"代码\s\w+\s必须"],
    )
    assert result.stats.bytes_after <= 900
    kept = [str(m.get("content")) for m in result.messages]
    assert any("错误代码 E1234 必须保留" in text for text in kept)
    assert pinned not in kept  # the message itself was shortened around its pinned span


def test_a_class_complement_inside_a_class_is_refused_clearly() -> None:
    from ctxkeep.base.user_regex import UserRegexError, compile_user_regex

    with pytest.raises(UserRegexError, match=r"\\W inside \[\.\.\.\]"):
        compile_user_regex(r"[\W]")
