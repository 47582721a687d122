from __future__ import annotations

import pytest

from ctxkeep.compactor.pins import compile_pins, parse_flags

PINS, _ = compile_pins(())


@pytest.mark.parametrize(
    ("text", "pin"),
    [
        ("the fix belongs in src/parse/config.py", "path"),
        ("edit ./run.sh first", "path"),
        ("open C:\\Users\\me\\notes.txt", "path"),
        ("cat /etc/hosts", "path"),
        ("the bug is in parser.py", "path"),
        ("Traceback (most recent call last):\n  boom", "trace"),
        ('  File "app.py", line 3, in <module>', "trace"),
        ("Error: x\n    at parse (lib/parse.js:10:5)", "trace"),
        ('Exception in thread "main" java.lang.NullPointerException', "trace"),
        ("goroutine 1 [running]:\nmain.main()", "trace"),
        ("raised KeyError: 'port'", "trace"),
        ("the API answered HTTP 429 again", "error"),
        ("status: 503", "error"),
        ("failed with 0x8007000E", "error"),
        ("open failed: ENOENT", "error"),
        ("see https://docs.example.com/api?x=1", "url"),
        ("Do not change the public API of the parser.", "constraint"),
        ("ok. You must keep the line numbers", "constraint"),
        ("- never push to main", "constraint"),
        ("Important: tests run offline", "constraint"),
        ("NOTE: slow", "constraint"),
        ("必须保留原始行号", "constraint"),
        ("好的。不要修改公共接口", "constraint"),
        ("注意：这里很慢", "constraint"),
    ],
)
def test_builtin_pins(text: str, pin: str) -> None:
    assert PINS.pin_of(text) == pin


@pytest.mark.parametrize(
    "text",
    [
        "ok sounds good",
        "方案/数据/渠道",  # Chinese joined by slashes is not a path
        "use /break/continue in the loop",  # C keywords, not a path
        "on 04/12/15 we met",  # a date
        "suffixes /U/UL/F",  # integer suffixes
        "use /addss/subss",  # assembly mnemonics
        "ping 127.0.0.1",  # an IP, not a file
        "version 1.2.3 and e.g. this",
        "km/h and and/or",
        "status 200 is fine",  # success is not an error code
        "I will always remember",  # 'always' mid-sentence is not a standing instruction
        "enoent is a funny word",  # errno names are case-sensitive
    ],
)
def test_not_pinned(text: str) -> None:
    assert PINS.pin_of(text) is None


def test_errno_names_stay_case_sensitive_under_ignorecase() -> None:
    pins, _ = compile_pins((), flags="i")
    assert pins.pin_of("got ENOENT") == "error"
    assert pins.pin_of("got Enoent") is None


def test_flags_apply_to_user_patterns() -> None:
    insensitive, _ = compile_pins(["ticket-\\d+"], flags="i")
    sensitive, _ = compile_pins(["ticket-\\d+"], flags="")
    assert insensitive.pin_of("see TICKET-12") == "user"
    assert sensitive.pin_of("see TICKET-12") is None
    assert sensitive.pin_of("see ticket-12") == "user"


def test_bad_patterns_and_flags_are_problems_not_errors() -> None:
    pins, problems = compile_pins(["(", 5, "ok"], flags="iq")
    assert any("pin_patterns[0]" in p for p in problems)
    assert any("pin_patterns[1]" in p for p in problems)
    assert any("unknown flag 'q'" in p for p in problems)
    assert pins.pin_of("ok") == "user"
    assert parse_flags("ms")[1] == []


def test_pinning_switched_off_pins_nothing() -> None:
    pins, _ = compile_pins(["x"], enabled=False)
    assert pins.pin_of("src/a.py x ENOENT") is None


def test_many_texts_at_once_match_one_at_a_time() -> None:
    texts = ["plain", "src/a.py", "İİ. Do not push", "x\x00y ENOENT", "", "ok. never"]
    assert PINS.pins_of(texts) == [PINS.pins_of([t])[0] for t in texts]
    assert PINS.pins_of(texts) == [None, "path", "constraint", "error", None, "constraint"]
