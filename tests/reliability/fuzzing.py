"""The fuzz harness of issue 14: hostile variants of real-shaped logs, through every reader.

Shared by the short seeded run in the test suite (``test_fuzz.py``) and the long runs of
``benchmarks/fuzz.py --minutes N``. Each input is a seed log of one format (the examples,
the fixtures, a generated message list) put through one or more mutations (cut, bytes
flipped or inserted, lines repeated or dropped, a JSON value swapped for a hostile one:
a 400-digit number, a deep nesting, a long run of escaped quotes, NULs, a BOM...). Every
input goes through what promises never to raise on bad input: every adapter (sniffed
and forced), ``audit`` with every report format (secrets masked), the message-list reader
and ``compact``. An exception escaping any of them is a failure; an input slower than the
per-input limit is reported and saved; a growth probe times a repeated slice at two sizes
and reports super-linear growth.
"""

from __future__ import annotations

import json
import random
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxkeep.compactor import compact
from ctxkeep.engine import audit
from ctxkeep.log.adapters import format_names
from ctxkeep.log.message_list import read_message_list
from ctxkeep.log.reader import read_session
from ctxkeep.report import render, report_names

ROOT = Path(__file__).resolve().parents[2]

SEEDS: tuple[tuple[str, str], ...] = (
    ("claude-code", "examples/claude-code/tinyparse-three-compactions.jsonl"),
    ("claude-code", "examples/claude-code/tinyparse-microcompact.jsonl"),
    ("claude-code", "tests/fixtures/claude_code/compactions.jsonl"),
    ("codex", "tests/fixtures/codex/rollout-compactions.jsonl"),
    ("codex", "tests/fixtures/codex/rollout-older-compactions.jsonl"),
    ("openhands", "examples/openhands/weatherhub-retry.json"),
    ("openhands", "tests/fixtures/openhands/v0-events.jsonl"),
    ("openai", "examples/openai/ledgerlite-csv-export.json"),
    ("openai", "tests/fixtures/plain/openai_transcript_with_summary.json"),
    ("anthropic", "examples/anthropic/tilecache-race-fix.json"),
    ("anthropic", "tests/fixtures/plain/anthropic_messages.jsonl"),
    ("ctxkeep", "tests/golden/session.jsonl"),
)
"""(format, path from the repo root) of each seed log."""

HOSTILE_VALUES: tuple[Any, ...] = (
    None,
    True,
    -1,
    10**400,
    1e308,
    "",
    "\x00",
    "\ufeff",
    "\ud800",
    "错误信息必须保留" * 50,
    '\\"' * 2000,
    "a" * 5000 + "!",
    "sk-proj-Q7vL2mX9kR4tW8pZ3nB6yC1dF5gH0jK password=hunter2x",
    [],
    {},
    [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]],
    {"role": "tool", "tool_call_id": None, "content": [{"type": "image"}]},
    "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 3000,
)


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _swap_value(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """``value`` with one member somewhere replaced by a hostile value."""
    if depth > 6 or not isinstance(value, dict | list) or not value or rng.random() < 0.2:
        return rng.choice(HOSTILE_VALUES)
    if isinstance(value, dict):
        key = rng.choice(list(value))
        return {**value, key: _swap_value(rng, value[key], depth + 1)}
    i = rng.randrange(len(value))
    return [*value[:i], _swap_value(rng, value[i], depth + 1), *value[i + 1 :]]


def _json_swap(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    try:
        value = json.loads(lines[i]) if len(lines) > 1 else json.loads(data)
    except ValueError:
        return data
    swapped = json.dumps(_swap_value(rng, value), ensure_ascii=rng.random() < 0.5)
    encoded = swapped.encode("utf-8", "surrogatepass")
    if len(lines) == 1:
        return encoded
    return b"\n".join([*lines[:i], encoded, *lines[i + 1 :]])


def _cut(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _flip(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if out:
            out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _insert(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    junk = rng.choice(
        [b"\x00", b"\xff\xfe", "\ufeff".encode(), b"\r\n", b"{", b"]",
         b'"', b"\\", b',,', b"\n\n\n", b'\\"' * 500, b"[" * 3000, b"\xe9"]
    )  # fmt: skip
    return data[:at] + junk + data[at:]


def _repeat_line(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    return b"\n".join([*lines[: i + 1], *[lines[i]] * rng.randint(1, 50), *lines[i + 1 :]])


def _drop_line(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    if len(lines) < 2:
        return data
    i = rng.randrange(len(lines))
    return b"\n".join(lines[:i] + lines[i + 1 :])


def _shuffle_lines(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    rng.shuffle(lines)
    return b"\n".join(lines)


MUTATIONS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "json-swap": _json_swap,
    "cut": _cut,
    "flip": _flip,
    "insert": _insert,
    "repeat-line": _repeat_line,
    "drop-line": _drop_line,
    "shuffle-lines": _shuffle_lines,
}


def _messages_seed(rng: random.Random) -> bytes:
    """A generated OpenAI message list with tool calls, as an array or as JSONL."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are an agent."}]
    for turn in range(rng.randint(1, 12)):
        messages.append({"role": "user", "content": f"Do step {turn}. Never touch src/x.py."})
        call = f"call_{turn}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": call, "type": "function",
                     "function": {"name": "sh", "arguments": json.dumps({"cmd": "ls"})}}
                ],
            }
        )  # fmt: skip
        messages.append({"role": "tool", "tool_call_id": call, "content": "a.py\nb.py " * 20})
    if rng.random() < 0.5:
        return json.dumps(messages, indent=rng.choice([None, 2])).encode()
    return b"\n".join(json.dumps(m).encode() for m in messages) + b"\n"


@dataclass(frozen=True, slots=True)
class FuzzInput:
    """One generated input: its format, bytes and the mutations that made it."""

    format: str
    data: bytes
    mutations: tuple[str, ...]
    suffix: str


def inputs(seed: int) -> Iterator[FuzzInput]:
    """An endless, reproducible stream of inputs for ``seed``."""
    rng = random.Random(seed)
    seeds = [(fmt, (ROOT / rel).read_bytes(), Path(rel).suffix) for fmt, rel in SEEDS]
    while True:
        if rng.random() < 0.15:
            fmt, data, suffix = "openai", _messages_seed(rng), ".json"
        else:
            fmt, data, suffix = rng.choice(seeds)
        names = tuple(rng.choice(list(MUTATIONS)) for _ in range(rng.randint(1, 3)))
        for name in names:
            data = MUTATIONS[name](rng, data) if data else data
        yield FuzzInput(fmt, data, names, suffix)


@dataclass
class Outcome:
    """What a run met, by format."""

    inputs: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, str, Path]] = field(default_factory=list)
    slow: list[tuple[float, str, Path]] = field(default_factory=list)
    superlinear: list[tuple[float, float, Path]] = field(default_factory=list)
    slowest: tuple[float, str, int] = (0.0, "", 0)
    seconds: float = 0.0


Check = Callable[[Path, FuzzInput], None]


def _read_every_way(path: Path, item: FuzzInput) -> None:
    read_session(path)
    for name in format_names():
        read_session(path, format=name)


def _audit_and_report(path: Path, item: FuzzInput) -> None:
    result = audit(path)
    for name in report_names():
        render(name, result)


def _compact(path: Path, item: FuzzInput) -> None:
    loaded = read_message_list(str(path))
    if loaded.messages:
        compact(loaded.messages, "fix the parser", target_bytes=2000, pin_patterns=["(a+)+$"])


CHECKS: tuple[tuple[str, Check], ...] = (
    ("read", _read_every_way),
    ("audit+reports", _audit_and_report),
    ("compact", _compact),
)


def _timed_checks(path: Path, item: FuzzInput) -> tuple[float, list[tuple[str, str]]]:
    """CPU seconds of every check on ``path`` and the failures met. CPU time, not wall
    time: the machine is shared, and another process's load is not this input's cost."""
    failures: list[tuple[str, str]] = []
    began = time.process_time()
    for name, check in CHECKS:
        try:
            check(path, item)
        except Exception:
            failures.append((name, traceback.format_exc(limit=-8)))
    return time.process_time() - began, failures


def run_one(item: FuzzInput, folder: Path, index: int, outcome: Outcome, limit: float) -> float:
    """Run every check on one input; record failures and slowness; return its seconds
    (an input over ``limit`` is timed again, the faster run counts)."""
    path = folder / f"input{item.suffix}"
    path.write_bytes(item.data)
    took, failures = _timed_checks(path, item)
    if failures:
        saved = _save(folder, f"fail-{index}", item)
        outcome.failures.extend((name, trace, saved) for name, trace in failures)
    if took > limit:
        took = min(took, _timed_checks(path, item)[0])
    outcome.inputs[item.format] += 1
    if took > outcome.slowest[0]:
        outcome.slowest = (took, "+".join(item.mutations), len(item.data))
    if took > limit:
        outcome.slow.append((took, "+".join(item.mutations), _save(folder, f"slow-{index}", item)))
    return took


def growth_probe(item: FuzzInput, folder: Path, index: int, outcome: Outcome) -> None:
    """Time the input with a slice of it repeated to two sizes (CPU time); more than 3x
    the time for twice the bytes (and over 0.2 s) is super-linear growth, reported and
    saved."""
    data = item.data
    if len(data) < 16:
        return
    rng = random.Random(index)
    start = rng.randrange(len(data) - 8)
    piece = data[start : start + rng.randint(8, min(4096, len(data) - start))]
    times = []
    for copies in (200, 400):
        grown = FuzzInput(
            item.format, data[:start] + piece * copies + data[start:], (), item.suffix
        )
        path = folder / f"grown{item.suffix}"
        path.write_bytes(grown.data)
        took, failures = _timed_checks(path, grown)
        if failures:
            saved = _save(folder, f"grown-fail-{index}", grown)
            outcome.failures.extend((name, trace, saved) for name, trace in failures)
        times.append(took)
    if times[1] > 0.2 and times[1] > 3 * times[0]:
        saved = _save(folder, f"superlinear-{index}", grown)
        outcome.superlinear.append((times[0], times[1], saved))


def _save(folder: Path, name: str, item: FuzzInput) -> Path:
    saved = folder / "saved" / f"{name}-{item.format}-{'+'.join(item.mutations)}{item.suffix}"
    saved.parent.mkdir(exist_ok=True)
    saved.write_bytes(item.data)
    return saved


def fuzz(
    folder: Path,
    *,
    seed: int,
    count: int | None = None,
    seconds: float | None = None,
    limit: float = 2.0,
    probe_every: int = 50,
    on_progress: Callable[[int, Outcome], None] | None = None,
) -> Outcome:
    """Fuzz until ``count`` inputs or ``seconds`` have passed (whichever is given first)."""
    outcome = Outcome()
    began = time.perf_counter()
    for index, item in enumerate(inputs(seed)):
        if count is not None and index >= count:
            break
        if seconds is not None and time.perf_counter() - began >= seconds:
            break
        run_one(item, folder, index, outcome, limit)
        if probe_every and index % probe_every == 0:
            growth_probe(item, folder, index, outcome)
        if on_progress is not None:
            on_progress(index + 1, outcome)
    outcome.seconds = time.perf_counter() - began
    return outcome
