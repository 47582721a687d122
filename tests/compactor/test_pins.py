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


def test_prose_pins_read_only_the_words_of_tool_traffic() -> None:
    texts = [
        "src/app/router.py\nsrc/app/cache.py",  # a tool result listing files
        'Read {"path": "src/app/router.py"}',  # a tool call
        'Traceback (most recent call last):\n  File "src/app/router.py", line 9',
        "The fix belongs in src/app/router.py.",  # what the assistant says
    ]
    prose = ["", "", "", "The fix belongs in src/app/router.py."]
    assert PINS.pins_of(texts, prose) == [None, None, "trace", "path"]
    # without the prose view every one of them is pinned
    assert PINS.pins_of(texts) == ["path", "path", "trace", "path"]


def test_compaction_of_tool_traffic_naming_files_still_saves_room() -> None:
    import ctxkeep

    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the cache race. Do not touch src/app/api.py."},
    ]
    for k in range(30):
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{k}",
                        "type": "function",
                        "function": {"name": "read", "arguments": f'{{"path": "src/app/m{k}.py"}}'},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{k}", "content": "x = 1\n" * 80})
    messages.append({"role": "user", "content": "status?"})
    size = sum(len(str(m)) for m in messages)
    result = ctxkeep.compact(messages, "fix the cache race", target_bytes=size // 4)
    assert result.stats.over_budget_bytes == 0
    assert result.stats.bytes_after < size // 2
    kept = [d.reason for d in result.decisions]
    assert kept[1] == "pinned:constraint"


@pytest.mark.parametrize(
    "constraint",
    [
        "错误信息必须保留原始行号和列号。",  # subject first: the marker is mid-sentence
        "补充两点：禁止修改公共接口。",  # after a full-width colon
        "`read_chunk` 必须返回字节。",
    ],
)
def test_user_constraints_the_auditor_finds_are_pinned(constraint: str) -> None:
    import ctxkeep

    messages: list[dict[str, object]] = [{"role": "system", "content": "你是编程助手。"}]
    messages.append({"role": "user", "content": constraint})
    messages += [{"role": "assistant", "content": f"第 {k} 步完成。" * 20} for k in range(20)]
    messages.append({"role": "user", "content": "继续"})
    size = sum(len(str(m).encode()) for m in messages)
    result = ctxkeep.compact(messages, "修复解析器", target_bytes=size // 4)
    assert result.decisions[1].reason == "pinned:constraint"
    assert messages[1] in result.messages
