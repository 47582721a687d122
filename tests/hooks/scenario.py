"""A session in which ctxkeep's real hooks restore, ask and caution (the ledger's read side).

A real-format Claude Code session in which ctxkeep's hooks (installed with ``ctxkeep hook
install`` and run exactly as Claude Code runs them, so the ledger is the real hook's)
restore what compaction 1 lost, then ask the summariser of compaction 2 to keep the
user's instructions. The transcript holds the hooks' traces (``hook_progress``) as Claude
Code writes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hooks.harness import (
    Home,
    installed_command,
    make_home,
    run_as_harness,
    run_ctxkeep,
)
from tests.rules.build import Step, build_claude_code_records

ROOT = Path(__file__).resolve().parents[2]
SESSION = "5e55a10e-0000-4000-8000-00000000c0de"  # the session id build.py writes
SCOPE = "Only touch src/cache/lru.py and src/fetch.py"
NEVER = "never edit src/cache/api.py: other teams import it"

PART_1: list[Step] = [
    [
        "user",
        "Let's add an LRU cache to the fetcher. Only touch src/cache/lru.py and "
        "src/fetch.py, and never edit src/cache/api.py: other teams import it.",
    ],
    ["assistant", "I'll read the fetcher first."],
    ["call", "t1", "Read", {"file_path": "/home/dev/app/src/fetch.py"}],
    ["result", "t1", "def fetch(url):\n    return http.get(url)\n"],
    ["assistant", "Adding the cache in src/cache/lru.py."],
    [
        "compact",
        {
            "summary": "The user wants an LRU cache for the fetcher, in src/cache/lru.py and "
            "src/fetch.py. The fetcher in src/fetch.py calls http.get."
        },
    ],
]
PART_2: list[Step] = [
    ["user", "Also keep the cache size at 512 items."],
    ["assistant", "Done: the cache holds at most 512 items."],
]
# Compaction 2's summary: it repeats the restored prohibition (its path is in no
# message it replaced: only the restore put it there), drops the restored scope, and
# names a path found nowhere (src/cache/ttl.py).
SUMMARY_2 = (
    "The LRU cache lives in src/cache/lru.py; keep the cache size at 512 items. The user "
    "said never edit src/cache/api.py, other teams import it. Next: wire expiry into "
    "src/cache/ttl.py."
)


@dataclass(frozen=True, slots=True)
class Scenario:
    home: Home
    transcript: Path
    restored_1: str  # what session-start printed after compaction 1
    asked_2: str  # what pre-compact printed before compaction 2


def _write(home: Home, steps: list[Step]) -> Path:
    folder = home.root / ".claude" / "projects" / "-home-dev-app"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{SESSION}.jsonl"
    path.write_text("\n".join(build_claude_code_records(steps)) + "\n", encoding="utf-8")
    return path


def _payload(transcript: Path, home: Home, event: str, **more: str) -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(home.project),
        "hook_event_name": event,
        **more,
    }


def _run_hook(home: Home, command: str, payload: dict[str, Any]) -> str:
    done = run_as_harness(home, command, payload, CLAUDE_PROJECT_DIR=str(home.project))
    assert done.returncode == 0, done.stderr
    return done.stdout


def build_scenario(tmp_path: Path) -> Scenario:
    """Install the hooks in a home under ``tmp_path`` and play the session through them."""
    home = make_home(tmp_path)
    installed = run_ctxkeep(home, "hook", "install", "--harness", "claude-code")
    assert installed.returncode == 0, installed.stderr
    settings = home.root / ".claude" / "settings.json"
    start, pre = (
        installed_command(settings, "SessionStart"),
        installed_command(settings, "PreCompact"),
    )
    # After compaction 1, Claude Code runs SessionStart(compact) and writes its trace.
    steps = [*PART_1, ["hook", "SessionStart", "SessionStart:compact", start]]
    transcript = _write(home, steps)
    restored = _run_hook(home, start, _payload(transcript, home, "SessionStart", source="compact"))
    # Later, before compaction 2, PreCompact.
    steps += [*PART_2, ["hook", "PreCompact", "PreCompact:auto", pre]]
    transcript = _write(home, steps)
    asked = _run_hook(home, pre, _payload(transcript, home, "PreCompact", trigger="auto"))
    # Compaction 2, and SessionStart(compact) after it.
    steps += [
        ["compact", {"summary": SUMMARY_2}],
        ["hook", "SessionStart", "SessionStart:compact", start],
    ]
    transcript = _write(home, steps)
    _run_hook(home, start, _payload(transcript, home, "SessionStart", source="compact"))
    return Scenario(home, transcript, restored, asked)
