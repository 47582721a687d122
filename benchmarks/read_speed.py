"""How fast ctxkeep reads a large Claude Code log, against plain JSON decoding of it.

Generates a Claude Code session log (default 200 MB) of realistic records -- user
prompts; assistant responses split into one record per content block (thinking, text,
tool_use) sharing ``message.id`` and repeating ``usage``; tool results with long outputs
and their ``toolUseResult`` copy; hook progress records; file-history snapshots; and five
times, evenly spread, a ``compact_boundary`` followed by its ``isCompactSummary`` record --
then times, in the same run:

- baseline: a plain line-by-line ``json.loads`` of the file (and msgspec's, for context);
- ``ctxkeep show`` as a library call: ``read_session`` + ``session_overview``;
- ``ctxkeep show`` as the command, in a subprocess (interpreter start-up included).

The methods run in interleaved rounds (a load swing on this shared machine hits them
alike). It prints each one's best MB/s with its ratio to the baseline, and the paired
ratio of every round; the verdict uses their median (target: ctxkeep >= 0.5).

    .venv/bin/python benchmarks/read_speed.py                  # 200 MB, in a temp dir
    .venv/bin/python benchmarks/read_speed.py --size-mb 20     # quicker
    .venv/bin/python benchmarks/read_speed.py --path big.jsonl # keep / reuse the log
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from _common import best_of, machine, mb_per_s
from ctxkeep.log.reader import read_session
from ctxkeep.summary import session_overview

SUMMARY_OPENING = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\n"
)
COMPACTIONS = 5  # spread evenly: a 200 MB log compacts every ~40 MB
_WORDS = [
    "parser",
    "retry",
    "backoff",
    "config",
    "loader",
    "module",
    "tests",
    "fixture",
    "request",
    "response",
    "handler",
    "cache",
    "index",
    "schema",
    "migration",
    "token",
    "budget",
    "window",
    "summary",
    "compaction",
    "session",
    "event",
    "record",
    "stream",
    "buffer",
    "decode",
    "encode",
    "error",
    "timeout",
    "worker",
    "queue",
    "lock",
    "thread",
    "process",
    "file",
    "path",
    "import",
    "export",
    "client",
    "server",
    "route",
    "endpoint",
    "header",
    "payload",
    "field",
    "value",
    "must",
    "never",
    "always",
    "only",
    "do",
    "not",
    "keep",
    "remove",
    "rename",
    "refactor",
    "update",
    "fix",
    "add",
    "check",
]
_FILES = [
    f"src/{pkg}/{name}.py"
    for pkg in ("feeds", "core", "api", "storage", "cli")
    for name in ("client", "models", "handlers", "utils", "config", "parser")
]
_TOOLS = ("Read", "Bash", "Edit", "Grep", "Write")


class _Generator:
    """Writes Claude Code records with deterministic ids and pooled text."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.session = str(uuid.UUID(int=self.rng.getrandbits(128)))
        self.parent: str | None = None
        self.counter = 0
        self.minute = 0
        self.encode = msgspec.json.Encoder().encode
        self.sentences = [self._sentence() for _ in range(4000)]
        self.code_lines = [self._code_line(i) for i in range(6000)]

    def _sentence(self) -> str:
        words = self.rng.choices(_WORDS, k=self.rng.randint(6, 22))
        words[0] = words[0].capitalize()
        if self.rng.random() < 0.3:
            words.insert(self.rng.randrange(len(words)), self.rng.choice(_FILES))
        return " ".join(words) + "."

    def _code_line(self, i: int) -> str:
        indent = "    " * self.rng.randint(0, 3)
        name = self.rng.choice(_WORDS)
        other = self.rng.choice(_WORDS)
        forms = (
            f"{indent}def {name}_{other}(self, {other}: str) -> int:",
            f"{indent}{name} = self.{other}.get({i}, None)",
            f"{indent}if not {name}:",
            f'{indent}raise ValueError("{name} {other} failed at {i}")',
            f"{indent}return {name}.{other}({i})",
            f"{indent}# {self.rng.choice(self.sentences)}",
        )
        return self.rng.choice(forms)

    def prose(self, sentences: int) -> str:
        return " ".join(self.rng.choices(self.sentences, k=sentences))

    def code(self, lines: int) -> str:
        start = self.rng.randrange(len(self.code_lines) - lines)
        numbered = (
            f"{n:>6}\t{line}"
            for n, line in enumerate(self.code_lines[start : start + lines], start=1)
        )
        return "\n".join(numbered)

    def _uuid(self) -> str:
        self.counter += 1
        return str(uuid.UUID(int=(self.counter << 64) | 0xC7C7))

    def _envelope(self, kind: str) -> dict[str, Any]:
        self.minute += 1
        uid = self._uuid()
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/pricefeed",
            "sessionId": self.session,
            "version": "2.1.39",
            "gitBranch": "feature/retries",
            "slug": "pricefeed-retries",
            "type": kind,
            "uuid": uid,
            "timestamp": f"2026-11-29T{(self.minute // 60) % 24:02d}:{self.minute % 60:02d}:00Z",
        }
        self.parent = uid
        return rec

    def line(self, rec: dict[str, Any]) -> bytes:
        return self.encode(rec) + b"\n"

    def turn(self) -> Iterator[bytes]:
        """One user prompt and a few assistant tool rounds."""
        user = self._envelope("user")
        user["message"] = {"role": "user", "content": self.prose(self.rng.randint(1, 4))}
        yield self.line(user)
        for _ in range(self.rng.randint(1, 4)):
            yield from self._assistant_round()

    def _assistant_round(self) -> Iterator[bytes]:
        msg_id = f"msg_{self.counter:08d}{self.rng.getrandbits(32):08x}"
        usage = {
            "input_tokens": self.rng.randint(1, 50),
            "cache_creation_input_tokens": self.rng.randint(0, 4000),
            "cache_read_input_tokens": self.rng.randint(20_000, 150_000),
            "output_tokens": self.rng.randint(50, 2000),
        }
        tool = self.rng.choice(_TOOLS)
        call_id = f"toolu_{self.counter:08d}{self.rng.getrandbits(40):010x}"
        path = self.rng.choice(_FILES)
        blocks: list[dict[str, Any]] = [
            {
                "type": "thinking",
                "thinking": self.prose(self.rng.randint(2, 8)),
                "signature": "Eu8B" * 40,
            },
            {"type": "text", "text": self.prose(self.rng.randint(1, 3))},
            {"type": "tool_use", "id": call_id, "name": tool, "input": {"file_path": path}},
        ]
        for block in blocks:
            rec = self._envelope("assistant")
            rec["requestId"] = f"req_{msg_id[4:]}"
            rec["message"] = {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [block],
                "stop_reason": None,
                "usage": usage,
            }
            yield self.line(rec)
        if self.rng.random() < 0.3:
            progress = self._envelope("progress")
            progress["data"] = {
                "type": "hook_progress",
                "hookEvent": "PostToolUse",
                "hookName": "PostToolUse:Edit",
                "command": "ruff check --fix",
            }
            progress["toolUseID"] = call_id
            yield self.line(progress)
        output = self.code(self.rng.randint(20, 400))
        result = self._envelope("user")
        result["message"] = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call_id, "content": output}],
        }
        result["toolUseResult"] = {
            "type": "text",
            "file": {"filePath": path, "content": output, "numLines": output.count("\n") + 1},
        }
        yield self.line(result)
        if self.rng.random() < 0.05:
            yield self.line(
                {
                    "type": "file-history-snapshot",
                    "messageId": self._uuid(),
                    "snapshot": {"trackedFileBackups": {path: {"version": 3}}},
                    "isSnapshotUpdate": False,
                }
            )

    def compaction(self, pre_tokens: int) -> Iterator[bytes]:
        boundary = self._envelope("system")
        logical = boundary["parentUuid"]
        boundary.update(
            {
                "parentUuid": None,
                "logicalParentUuid": logical,
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "isMeta": False,
                "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": pre_tokens},
            }
        )
        self.parent = boundary["uuid"]
        yield self.line(boundary)
        summary = self._envelope("user")
        text = (
            SUMMARY_OPENING
            + "Analysis:\n"
            + self.prose(40)
            + "\n\nSummary:\n"
            + "\n".join(f"{n}. {self.prose(12)}" for n in range(1, 10))
        )
        summary.update(
            {
                "isCompactSummary": True,
                "isVisibleInTranscriptOnly": True,
                "message": {"role": "user", "content": text},
            }
        )
        yield self.line(summary)


def generate(path: Path, size_bytes: int, seed: int = 7) -> int:
    """Write a Claude Code log of about ``size_bytes``; returns compactions written."""
    gen = _Generator(seed)
    written = 0
    every = size_bytes // (COMPACTIONS + 1)
    next_compaction = every
    compactions = 0
    with path.open("wb") as fh:
        while written < size_bytes:
            for line in gen.turn():
                fh.write(line)
                written += len(line)
            if written >= next_compaction and written < size_bytes:
                for line in gen.compaction(pre_tokens=167_000 + compactions):
                    fh.write(line)
                    written += len(line)
                compactions += 1
                next_compaction += every
    return compactions


def decode_json_loads(path: Path) -> int:
    """The baseline: every line through the standard library's ``json.loads``."""
    count = 0
    with path.open("rb") as fh:
        for raw in fh:
            json.loads(raw)
            count += 1
    return count


def decode_msgspec(path: Path) -> int:
    """Context: the same with msgspec, the decoder ctxkeep uses."""
    decode = msgspec.json.Decoder().decode
    count = 0
    with path.open("rb") as fh:
        for raw in fh:
            decode(raw)
            count += 1
    return count


def ctxkeep_show(path: Path) -> dict[str, Any]:
    """What ``ctxkeep show`` does for one file, as library calls."""
    return session_overview(read_session(path))


def ctxkeep_show_cli(path: Path) -> int:
    proc = subprocess.run(
        [sys.executable, "-m", "ctxkeep", "show", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"ctxkeep show exited {proc.returncode}: {proc.stderr.decode()}")
    return proc.returncode + 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size-mb", type=float, default=200.0, help="log size (default 200)")
    parser.add_argument("--runs", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--path", type=Path, help="write (or reuse) the log here")
    args = parser.parse_args(argv)
    size = int(args.size_mb * 1024 * 1024)
    with tempfile.TemporaryDirectory(prefix="ctxkeep-read-speed-") as tmp:
        path: Path = args.path or Path(tmp) / "session.jsonl"
        if path.exists() and path.stat().st_size >= size * 0.95:
            print(f"reusing {path}")
        else:
            compactions = generate(path, size)
            print(f"generated {path} ({compactions} compactions)")
        nbytes = path.stat().st_size
        print(f"{machine()}; log {nbytes / 1e6:.1f} MB; best of {args.runs} rounds")

        # Rounds interleave the methods, so a swing in the load of this shared machine hits
        # them alike; each round also gives a paired ratio (ctxkeep time vs json.loads time).
        methods: dict[str, Callable[[], Any]] = {
            "json": lambda: decode_json_loads(path),
            "msgspec": lambda: decode_msgspec(path),
            "lib": lambda: ctxkeep_show(path),
            "cli": lambda: ctxkeep_show_cli(path),
        }
        best = dict.fromkeys(methods, float("inf"))
        results: dict[str, Any] = {}
        paired: list[float] = []
        for _ in range(args.runs):
            times: dict[str, float] = {}
            for key, func in methods.items():
                times[key], results[key] = best_of(1, func)
                best[key] = min(best[key], times[key])
            paired.append(times["json"] / times["lib"])

        overview = results["lib"]
        base = mb_per_s(nbytes, best["json"])
        rows = [
            ("json.loads line by line (baseline)", best["json"]),
            ("msgspec line by line", best["msgspec"]),
            ("ctxkeep show (read_session + overview)", best["lib"]),
            ("ctxkeep show (CLI subprocess)", best["cli"]),
        ]
        print(
            f"{results['json']:,} lines; ctxkeep read {overview['events']:,} events, "
            f"{len(overview['compactions'])} compactions, {len(overview['problems'])} problems"
        )
        for name, seconds in rows:
            speed = mb_per_s(nbytes, seconds)
            print(f"  {name:<40} {seconds:7.2f} s  {speed:7.1f} MB/s  ratio {speed / base:.2f}")
        ratio = statistics.median(paired)
        rounds = ", ".join(f"{r:.2f}" for r in paired)
        verdict = "meets" if ratio >= 0.5 else "MISSES"
        print(f"paired ratio per round (json.loads time / ctxkeep show time): {rounds}")
        print(f"ctxkeep show reads at {ratio:.2f} of json.loads speed (median): {verdict} 0.5")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
