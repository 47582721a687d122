"""Audit throughput on a generated Claude Code log, against compact-audit in the same run.

    .venv/bin/python benchmarks/audit_speed.py [--mb 200] [--events 26000] [--keep DIR]
        [--reuse] [--no-peer] [--runs N]

Generates (into a temporary folder unless ``--keep``) a Claude Code session of ``--mb``
megabytes: user turns with standing constraints, assistant text, Read/Bash tool calls
with code-like results, usage records, and a compaction (boundary + 12k-character
summary) every 20 MB. Prints:

- ctxkeep: ``read_session`` + every rule over every compaction, MB/s of the log (one
  process, so this is per core);
- compact-audit (PyPI, installed only in the benchmark environment, see
  benchmarks/requirements.txt) on the same transcript text and the same (last) summary,
  in its own input format (JSONL of ``{"content": text}``), and the ratio of the two
  times in this run;
- the time to audit a session of ``--events`` events (target: under a second), in
  process and as the ``ctxkeep audit`` command in a subprocess.

To compare two versions of ctxkeep, time them in alternating fresh processes on the
same logs: write them once with ``--keep DIR``, then run each version with ``--keep DIR
--reuse --no-peer`` (``PYTHONPATH=<other checkout>/src`` selects the other version; the
CLI subprocess inherits it). The logs are named by their size, so ``--reuse`` never
reads a log made for other ``--mb`` / ``--events``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ctxkeep
from _common import best_of, machine, mb_per_s  # benchmarks/ is not a package
from ctxkeep.engine import audit_session
from ctxkeep.log import read_session

_WORDS = [
    "parser",
    "lexer",
    "token",
    "buffer",
    "retry",
    "backoff",
    "client",
    "server",
    "request",
    "response",
    "cache",
    "config",
    "handler",
    "worker",
    "queue",
    "schema",
    "migration",
    "index",
    "record",
    "stream",
    "batch",
    "window",
    "summary",
    "context",
    "budget",
    "session",
    "module",
    "package",
    "import",
    "export",
    "field",
    "value",
]
_CONSTRAINTS = (
    "Do not change the public API of the {w} module.",
    "Never push to the main branch.",
    "Always run pytest -q tests/test_{w}.py before committing.",
    "Only edit files under src/{w}/.",
    "You must keep CHANGELOG.md updated.",
    "不要修改公共接口 {w}。",
    "必须保留原始行号。",
)


def _code(rng: random.Random, size: int) -> str:
    lines = []
    n = 0
    while n < size:
        w = rng.choice(_WORDS)
        v = rng.choice(_WORDS)
        line = rng.choice(
            (
                f"def {w}_{v}(self, {v}: int = {rng.randint(1, 99)}) -> None:",
                f"    {w.upper()}_{v.upper()} = {rng.randint(100, 9999)}",
                f"from src.{w}.{v} import {w.capitalize()}{v.capitalize()}",
                f"    # see src/{w}/{v}.py:{rng.randint(1, 400)}"
                f" and http://localhost:{rng.randint(3000, 9000)}",
                f"    return self.{w}.{v}(timeout={rng.random():.2f})",
            )
        )
        lines.append(line)
        n += len(line) + 1
    return "\n".join(lines)


class _Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n = 0
        self.parent: str | None = None

    def record(self, kind: str, **fields: object) -> str:
        self.n += 1
        uuid = f"u-{self.n:08d}"
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/proj",
            "sessionId": "bench-0000",
            "version": "2.1.39",
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": "2026-11-20T10:00:00.000Z",
            **fields,
        }
        self.parent = uuid
        return json.dumps(rec, ensure_ascii=False)


def _assistant(msg_id: str, content: list[dict[str, Any]], usage: dict[str, int]) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "content": content,
        "usage": usage,
    }


def _turn(
    w: _Writer, rng: random.Random, turn: int, tokens: int
) -> tuple[list[str], list[str], int]:
    """One turn's records (the user asks, the assistant reads a file and replies), the two
    sentences a later summary may pick from, and the context's tokens after the turn."""
    text = f"Turn {turn}: look at the {rng.choice(_WORDS)} and fix the {rng.choice(_WORDS)}."
    if rng.random() < 0.2:
        text += " " + rng.choice(_CONSTRAINTS).format(w=rng.choice(_WORDS))
    lines = [w.record("user", message={"role": "user", "content": text})]
    msg_id = f"msg_{turn}"
    tokens += rng.randint(500, 4000)
    usage = {
        "input_tokens": 10,
        "cache_read_input_tokens": tokens,
        "cache_creation_input_tokens": 0,
        "output_tokens": 80,
    }
    call = f"toolu_{turn}"
    path = f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.py"
    read = {"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": path}}
    lines.append(w.record("assistant", message=_assistant(msg_id, [read], usage)))
    body = _code(rng, rng.randint(1_000, 12_000))
    lines.append(
        w.record(
            "user",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call, "content": body}],
            },
            toolUseResult={"type": "text", "file": {"filePath": path, "content": body}},
        )
    )
    caller, callee = rng.choice(_WORDS), f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)}"
    reply = f"I read {path}; the {caller} calls {callee}()."
    answer = [{"type": "text", "text": reply}]
    lines.append(w.record("assistant", message=_assistant(msg_id, answer, usage)))
    return lines, [text, reply], tokens


def _compaction(w: _Writer, rng: random.Random, tokens: int, history: list[str]) -> list[str]:
    """A compaction as Claude Code writes it (docs/formats.md): the boundary starts a new
    chain (parentUuid null) and points back through logicalParentUuid; the summary follows."""
    boundary = w.record(
        "system",
        parentUuid=None,
        subtype="compact_boundary",
        content="Conversation compacted",
        logicalParentUuid=w.parent,
        compactMetadata={"trigger": "auto", "preTokens": tokens},
    )
    w.parent = f"u-{w.n:08d}"
    picked = rng.sample(history, min(len(history), 120))
    summary = (
        "This session is being continued from a previous conversation that ran out of "
        "context. The conversation is summarized below:\nAnalysis:\n"
        + "\n".join(picked)[:11_000]
        + "\n\nSummary:\n1. Primary Request and Intent:\n   Keep fixing "
        "src/parser/lexer.py (as discussed earlier); also touched src/invented/module.py.\n"
    )
    return [
        boundary,
        w.record(
            "user",
            message={"role": "user", "content": summary},
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        ),
    ]


def claude_code_lines(
    target_bytes: int, *, seed: int = 7, compact_every: int = 20_000_000
) -> Iterator[str]:
    """The lines of a generated Claude Code session of about ``target_bytes``."""
    rng = random.Random(seed)
    w = _Writer(rng)
    size = 0
    since_compaction = 0
    tokens = 10_000
    turn = 0
    history: list[str] = []
    while size < target_bytes:
        turn += 1
        lines, said, tokens = _turn(w, rng, turn, tokens)
        history.extend(said)
        for line in lines:
            size += len(line.encode()) + 1
            since_compaction += len(line) + 1
            yield line
        if since_compaction >= compact_every:
            since_compaction = 0
            compaction = _compaction(w, rng, tokens, history)
            history.clear()
            tokens = 20_000
            for line in compaction:
                size += len(line.encode()) + 1
                yield line


def write_log(path: Path, target_bytes: int) -> int:
    with path.open("w", encoding="utf-8") as fh:
        for line in claude_code_lines(target_bytes):
            fh.write(line + "\n")
    return path.stat().st_size


def write_events(path: Path, events: int) -> None:
    """A session of about ``events`` events, with a compaction every 2 MB."""
    with path.open("w", encoding="utf-8") as fh:
        # About 0.8 events per line in this generator (usage is one record per turn).
        lines = claude_code_lines(10**12, compact_every=2_000_000)
        for _, line in zip(range(int(events * 0.8)), lines, strict=False):
            fh.write(line + "\n")


def _compact_audit_inputs(session_path: Path, folder: Path) -> tuple[Path, Path, int]:
    """compact-audit's own input: a JSONL of {"content": text} per event, and the summary."""
    session = read_session(session_path)
    transcript = folder / "transcript.jsonl"
    summary = folder / "summary.txt"
    with transcript.open("w", encoding="utf-8") as fh:
        for e in session.events:
            if e.text:
                fh.write(json.dumps({"content": e.text}, ensure_ascii=False) + "\n")
    last = next(c.summary for c in reversed(session.compactions) if c.summary)
    summary.write_text(last, encoding="utf-8")
    return transcript, summary, transcript.stat().st_size


def _compact_audit() -> tuple[Any, Any, Any] | None:
    """compact-audit's read, extract and audit, or None (typed Any: not a dependency)."""
    try:
        extract: Any = importlib.import_module("compact_audit.extract")
        audit: Any = importlib.import_module("compact_audit.audit")
    except ImportError:
        return None
    return extract.read_transcript, extract.extract, audit.audit


def _ctxkeep(path: Path) -> int:
    session = read_session(path)
    result = audit_session(session)
    return len(result.findings) + len(session.events)


def _compiled_package() -> dict[str, str]:
    """Byte-compile the ctxkeep being timed, as ``pip install`` does, and return the
    environment of the command: with ``PYTHONDONTWRITEBYTECODE`` set (as in this
    workplace's shells) and no ``__pycache__`` in a checkout, every run of the command
    compiled all its modules again, which a user's install never does."""
    package = str(Path(ctxkeep.__file__).parent)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True, env=env)
    return env


def _ctxkeep_cli(path: Path, env: dict[str, str]) -> int:
    """The command a user runs, interpreter start-up and JSON output included."""
    proc = subprocess.run(
        [sys.executable, "-m", "ctxkeep", "audit", "--format", "json", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
        env=env,
    )
    if proc.returncode not in (0, 1):  # 1: findings, which this log has
        raise RuntimeError(f"ctxkeep audit exited {proc.returncode}: {proc.stderr.decode()}")
    return proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=float, default=200.0)
    parser.add_argument("--events", type=int, default=26_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument(
        "--reuse", action="store_true", help="read the logs --keep DIR holds instead of writing"
    )
    parser.add_argument("--no-peer", action="store_true", help="do not time compact-audit")
    args = parser.parse_args()
    if args.reuse and args.keep is None:
        parser.error("--reuse reads the logs of --keep DIR: give --keep")
    print(machine())
    # Which ctxkeep this process times: PYTHONPATH=<checkout>/src selects another one.
    print(f"ctxkeep from {Path(ctxkeep.__file__).parent}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        log = folder / f"claude-code-bench-{args.mb:g}MB.jsonl"
        if args.reuse and log.exists():
            size = log.stat().st_size
        else:
            size = write_log(log, int(args.mb * 1e6))
        seconds, _ = best_of(args.runs, lambda: _ctxkeep(log))
        session = read_session(log)
        print(
            f"ctxkeep audit: {size / 1e6:.0f} MB, {len(session.events):,} events, "
            f"{len(session.compactions)} compactions: {seconds:.2f} s = "
            f"{mb_per_s(size, seconds):.0f} MB/s"
        )
        peer = None if args.no_peer else _compact_audit()
        if peer is None and not args.no_peer:
            print("compact-audit not installed: pip install -r benchmarks/requirements.txt")
        if peer is not None:
            read_transcript, ca_extract, ca_audit = peer
            transcript, summary, ca_size = _compact_audit_inputs(log, folder)
            text = summary.read_text(encoding="utf-8")

            def run_peer() -> object:
                lines, errors = read_transcript(transcript)
                return ca_audit(ca_extract(lines, errors), text)

            peer_s, _ = best_of(args.runs, run_peer)
            print(
                f"compact-audit: same transcript text ({ca_size / 1e6:.0f} MB as its JSONL) "
                f"and last summary: {peer_s:.2f} s = {mb_per_s(ca_size, peer_s):.0f} MB/s"
            )
            print(f"ratio: ctxkeep is {peer_s / seconds:.1f}x as fast as compact-audit (same run)")
        small = folder / f"events-{args.events}.jsonl"
        if not (args.reuse and small.exists()):
            write_events(small, args.events)
        t_small, _ = best_of(max(args.runs, 3), lambda: _ctxkeep(small))
        session = read_session(small)
        print(
            f"session of {len(session.events):,} events, {len(session.compactions)} "
            f"compactions ({small.stat().st_size / 1e6:.0f} MB): {t_small:.2f} s"
        )
        env = _compiled_package()
        t_cli, _ = best_of(max(args.runs, 3), lambda: _ctxkeep_cli(small, env))
        print(f"the same as `ctxkeep audit --format json` in a subprocess: {t_cli:.2f} s")


if __name__ == "__main__":
    main()
