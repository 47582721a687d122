"""End to end: the hook installed by ``ctxkeep hook install`` and run as the harness runs it.

Real-format transcripts (the bundled Claude Code and Codex examples, cut right after a
compaction that lost instructions): stdout must validate against the SessionStart output
contract, hold the lost instructions verbatim with their lines, stay within --max-bytes,
and the run is recorded in the ledger. A transcript whose newest summary kept everything
prints nothing. The transcript is never written to.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema

from tests.hooks.harness import (
    CLAUDE_AFTER_COMPACTION_3,
    CLAUDE_EXAMPLE,
    CLAUDE_SESSION,
    CODEX_AFTER_COMPACTION_2,
    CODEX_EXAMPLE,
    CODEX_SESSION,
    SCHEMA,
    Home,
    claude_transcript,
    codex_transcript,
    installed_command,
    ledger_lines,
    lines_of,
    make_home,
    run_as_harness,
    run_ctxkeep,
)

CLAUDE_LOST = (
    'error messages must always keep the "(line X, column Y)" suffix, the editor plugin parses it'
)
CODEX_LOST = (
    "Do not add new dependencies: no go-retryablehttp, no cenkalti/backoff",
    "Keep the public API of package client unchanged: callers in cmd/ and internal/ingest "
    "must compile as they are",
    "Retry only idempotent requests (GET, HEAD) and only on 429, 502, 503, 504 or a network error",
)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _context(stdout: str) -> str:
    """The additionalContext of a SessionStart output, after validating the contract."""
    output = json.loads(stdout)
    jsonschema.validate(output, json.loads(SCHEMA.read_text(encoding="utf-8")))
    return str(output["hookSpecificOutput"]["additionalContext"])


def _install(home: Home, harness: str) -> Path:
    done = run_ctxkeep(home, "hook", "install", "--harness", harness)
    assert done.returncode == 0, done.stderr
    if harness == "claude-code":
        return home.root / ".claude" / "settings.json"
    return home.root / ".codex" / "hooks.json"


def _claude_payload(transcript: Path, home: Home) -> dict[str, Any]:
    return {
        "session_id": CLAUDE_SESSION,
        "transcript_path": str(transcript),
        "cwd": str(home.project),
        "hook_event_name": "SessionStart",
        "source": "compact",
    }


def _claude_env(home: Home) -> dict[str, str]:
    env_file = home.root / ".claude" / "session-env" / "hook.sh"
    return {"CLAUDE_PROJECT_DIR": str(home.project), "CLAUDE_ENV_FILE": str(env_file)}


def test_claude_code_restores_the_lost_instruction(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    settings = _install(home, "claude-code")
    transcript = claude_transcript(home, lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3))
    before = _sha(transcript)
    command = installed_command(settings, "SessionStart")
    done = run_as_harness(home, command, _claude_payload(transcript, home), **_claude_env(home))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.encode()) <= 2000
    context = _context(done.stdout)
    assert f"[transcript line 131] {CLAUDE_LOST}" in context
    assert "lost 1 standing instruction" in context
    assert _sha(transcript) == before
    [record] = ledger_lines(home)
    assert record["event"] == "session-start"
    assert record["session_id"] == CLAUDE_SESSION
    assert record["compaction"] == 3
    assert record["status"] == "restored"
    assert [i["text"] for i in record["items"]] == [CLAUDE_LOST]
    assert not (home.ctxkeep / "hook-errors.log").exists()


def test_claude_code_prints_nothing_when_the_summary_kept_everything(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    settings = _install(home, "claude-code")
    lines = lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3)
    summary = json.loads(lines[146])  # line 147: the summary of compaction 3
    assert summary["isCompactSummary"] is True
    summary["message"]["content"] += f"\n\nStanding instruction from the user: {CLAUDE_LOST}\n"
    lines[146] = json.dumps(summary) + "\n"
    transcript = claude_transcript(home, lines)
    command = installed_command(settings, "SessionStart")
    done = run_as_harness(home, command, _claude_payload(transcript, home), **_claude_env(home))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    [record] = ledger_lines(home)
    assert record["status"] == "nothing-lost"
    assert record["items"] == []


def test_claude_code_other_sources_print_nothing(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    settings = _install(home, "claude-code")
    transcript = claude_transcript(home, lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3))
    command = installed_command(settings, "SessionStart")
    for source in ("startup", "resume", "clear"):
        payload = {**_claude_payload(transcript, home), "source": source}
        done = run_as_harness(home, command, payload, **_claude_env(home))
        assert (done.returncode, done.stdout) == (0, "")
    assert ledger_lines(home) == []


def _codex_payload(transcript: Path, home: Home) -> dict[str, Any]:
    return {
        "session_id": CODEX_SESSION,
        "transcript_path": str(transcript),
        "cwd": str(home.project),
        "hook_event_name": "SessionStart",
        "source": "compact",
        "model": "gpt-5-codex",
    }


def test_codex_restores_the_lost_instructions(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    hooks = _install(home, "codex")
    assert "hooks = true" in (home.root / ".codex" / "config.toml").read_text()
    transcript = codex_transcript(home, lines_of(CODEX_EXAMPLE, CODEX_AFTER_COMPACTION_2))
    before = _sha(transcript)
    done = run_as_harness(
        home, installed_command(hooks, "SessionStart"), _codex_payload(transcript, home)
    )
    assert done.returncode == 0, done.stderr
    context = _context(done.stdout)
    for text in CODEX_LOST:
        assert text in context
    assert "lost 3 standing instructions" in context
    assert _sha(transcript) == before
    [record] = ledger_lines(home)
    assert (record["compaction"], record["status"], len(record["items"])) == (2, "restored", 3)


def test_codex_prints_nothing_when_the_summary_kept_everything(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    hooks = _install(home, "codex")
    lines = lines_of(CODEX_EXAMPLE, CODEX_AFTER_COMPACTION_2)
    compacted = json.loads(lines[73])  # line 74: compaction 2, with a readable summary
    assert compacted["type"] == "compacted"
    kept = "\n".join(f"- {text}" for text in CODEX_LOST)
    compacted["payload"]["message"] += f"\n\nConstraints from the user:\n{kept}\n"
    lines[73] = json.dumps(compacted) + "\n"
    transcript = codex_transcript(home, lines)
    done = run_as_harness(
        home, installed_command(hooks, "SessionStart"), _codex_payload(transcript, home)
    )
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert [r["status"] for r in ledger_lines(home)] == ["nothing-lost"]


def test_codex_opaque_summary_is_not_audited(tmp_path: Path) -> None:
    """Codex 0.136+ encrypts its summary: nothing can be said, so nothing is printed."""
    home = make_home(tmp_path)
    hooks = _install(home, "codex")
    transcript = codex_transcript(home, lines_of(CODEX_EXAMPLE, 50))  # compaction 1: opaque
    done = run_as_harness(
        home, installed_command(hooks, "SessionStart"), _codex_payload(transcript, home)
    )
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert [r["status"] for r in ledger_lines(home)] == ["not-auditable"]


def test_max_bytes_bounds_the_whole_output(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    transcript = codex_transcript(home, lines_of(CODEX_EXAMPLE, CODEX_AFTER_COMPACTION_2))
    payload = json.dumps(_codex_payload(transcript, home))
    done = run_ctxkeep(home, "hook", "session-start", "--max-bytes", "600", stdin=payload)
    assert done.returncode == 0, done.stderr
    assert 0 < len(done.stdout.encode()) <= 600
    context = _context(done.stdout)
    assert CODEX_LOST[0] in context
    assert "more" in context
    assert "`ctxkeep diff" in context
    [record] = ledger_lines(home)
    assert len(record["items"]) < 3  # only what was printed counts as restored


def test_a_second_call_for_the_same_compaction_prints_nothing(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    transcript = claude_transcript(home, lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3))
    payload = json.dumps(_claude_payload(transcript, home))
    first = run_ctxkeep(home, "hook", "session-start", stdin=payload)
    second = run_ctxkeep(home, "hook", "session-start", "--wait", "0", stdin=payload)
    assert CLAUDE_LOST in _context(first.stdout)
    assert (second.returncode, second.stdout) == (0, "")
    assert len(ledger_lines(home)) == 1
    assert "already handled" in (home.ctxkeep / "hook-errors.log").read_text()


def test_codex_cautions_about_an_invented_item(tmp_path: Path) -> None:
    """The summary names a file and a port no source holds (no hook ran, and the first
    compaction's summary is readable here, so nothing hidden could hold them: high
    confidence): the restore ends with a caution naming them."""
    home = make_home(tmp_path)
    lines = lines_of(CODEX_EXAMPLE, CODEX_AFTER_COMPACTION_2)
    # Compaction 1 as an older Codex writes it: a readable summary, no encrypted item
    # (an encrypted one could hold anything, and every item would be low confidence).
    first = json.loads(lines[48])
    first["payload"]["message"] = (
        "Retries in client/retry.go: exponential backoff, base 200ms, 4 attempts."
    )
    first["payload"]["replacement_history"] = [
        item for item in first["payload"]["replacement_history"] if item["type"] != "compaction"
    ]
    lines[48] = json.dumps(first) + "\n"
    compacted = json.loads(lines[73])
    compacted["payload"]["message"] += (
        "\nThe retry settings now live in client/retry_policy.go; the mock server listens "
        "on port 8443.\n"
    )
    lines[73] = json.dumps(compacted) + "\n"
    transcript = codex_transcript(home, lines)
    done = run_ctxkeep(
        home, "hook", "session-start", stdin=json.dumps(_codex_payload(transcript, home))
    )
    assert done.returncode == 0, done.stderr
    context = _context(done.stdout)
    caution = context.splitlines()[-1]
    assert caution.startswith("Caution: the summary names 2 items found nowhere")
    assert "`client/retry_policy.go` (path)" in caution
    assert "`port 8443` (port)" in caution
    [record] = ledger_lines(home)
    assert {c["text"] for c in record["cautions"]} == {"client/retry_policy.go", "port 8443"}
    assert {c["confidence"] for c in record["cautions"]} == {"high"}
