"""The repository as a Claude Code plugin: its files are valid and the commands they run work.

Claude Code expands ``${CLAUDE_PLUGIN_ROOT}`` to the plugin's folder (here, the clone) and
runs hook commands through the shell; the MCP server it starts from ``mcpServers``. Both
are run so here, the server driven by the MCP SDK's real client.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ctxkeep import __version__
from tests.hooks.harness import (
    CLAUDE_AFTER_COMPACTION_3,
    CLAUDE_EXAMPLE,
    CLAUDE_SESSION,
    SCHEMA,
    Home,
    claude_transcript,
    ledger_lines,
    lines_of,
    make_home,
)

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / ".claude-plugin" / "plugin.json"
HOOKS = ROOT / "hooks" / "hooks.json"

# The manifest fields Claude Code's plugin reference documents (name required, kebab-case).
MANIFEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
        "version": {"type": "string"},
        "description": {"type": "string"},
        "author": {"type": "object", "required": ["name"]},
        "license": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "mcpServers": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["command"],
                "properties": {
                    "command": {"type": "string"},
                    "args": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    },
}
HOOK_ENTRY = {
    "type": "object",
    "required": ["type", "command"],
    "properties": {
        "type": {"const": "command"},
        "command": {"type": "string"},
        "timeout": {"type": "integer", "minimum": 1},
    },
}
HOOKS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["hooks"],
    "properties": {
        "description": {"type": "string"},
        "hooks": {
            "type": "object",
            "propertyNames": {"enum": ["SessionStart", "PreCompact"]},
            "additionalProperties": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["hooks"],
                    "properties": {
                        "matcher": {"type": "string"},
                        "hooks": {"type": "array", "minItems": 1, "items": HOOK_ENTRY},
                    },
                },
            },
        },
    },
}


def _manifest() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(PLUGIN.read_text(encoding="utf-8"))
    return doc


def _hooks() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(HOOKS.read_text(encoding="utf-8"))
    return doc


def _expand(text: str) -> str:
    return text.replace("${CLAUDE_PLUGIN_ROOT}", str(ROOT))


def test_the_manifest_is_valid_and_matches_the_package() -> None:
    manifest = _manifest()
    jsonschema.validate(manifest, MANIFEST_SCHEMA)
    assert manifest["name"] == "ctxkeep"
    assert manifest["version"] == __version__
    server = manifest["mcpServers"]["ctxkeep"]
    assert Path(_expand(server["args"][0])).is_file()
    assert server["args"][1:] == ["mcp"]


def test_the_hooks_file_is_valid_and_points_into_the_plugin() -> None:
    hooks = _hooks()
    jsonschema.validate(hooks, HOOKS_SCHEMA)
    [start] = hooks["hooks"]["SessionStart"]
    assert start["matcher"] == "compact"
    [pre] = hooks["hooks"]["PreCompact"]
    assert "matcher" not in pre  # both manual and auto compactions
    for group in (start, pre):
        for hook in group["hooks"]:
            launcher = re.search(r'"\$\{CLAUDE_PLUGIN_ROOT\}(/[^"]+)"', hook["command"])
            assert launcher is not None
            assert (ROOT / launcher.group(1).lstrip("/")).is_file()


def _hook_command(event: str) -> str:
    [group] = _hooks()["hooks"][event]
    [hook] = group["hooks"]
    return str(hook["command"])


def _run_plugin_hook(
    home: Home, event: str, payload: dict[str, Any], path: list[Path]
) -> subprocess.CompletedProcess[str]:
    """Run the plugin's hook for ``event`` as Claude Code does, with only ``path`` on PATH."""
    env = home.env(
        PATH=os.pathsep.join(str(p) for p in path),
        CLAUDE_PLUGIN_ROOT=str(ROOT),
        CLAUDE_PROJECT_DIR=str(home.project),
    )
    return subprocess.run(
        ["/bin/sh", "-c", _hook_command(event)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=home.project,
        timeout=300,
        check=False,
    )


def _payload(transcript: Path, home: Home, event: str) -> dict[str, Any]:
    return {
        "session_id": CLAUDE_SESSION,
        "transcript_path": str(transcript),
        "cwd": str(home.project),
        "hook_event_name": event,
        "source": "compact",
        "trigger": "auto",
        "custom_instructions": "",
    }


def _bin(tmp_path: Path, **commands: str) -> Path:
    """A folder standing for PATH: each ``name`` runs ``target`` (a wrapper, so that a
    virtual environment's interpreter keeps its packages)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name, target in commands.items():
        wrapper = folder / name
        wrapper.write_text(f'#!/bin/sh\nexec "{target}" "$@"\n')
        wrapper.chmod(0o755)
    return folder


def _context(stdout: str) -> str:
    output = json.loads(stdout)
    jsonschema.validate(output, json.loads(SCHEMA.read_text(encoding="utf-8")))
    return str(output["hookSpecificOutput"]["additionalContext"])


LOST = 'error messages must always keep the "(line X, column Y)" suffix'


def test_the_plugin_hooks_run_from_its_own_source(tmp_path: Path) -> None:
    """``python3`` with ctxkeep's dependencies: the plugin's own ``src/`` runs."""
    home = make_home(tmp_path)
    transcript = claude_transcript(home, lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3))
    path = [_bin(tmp_path, python3=sys.executable)]
    done = _run_plugin_hook(home, "SessionStart", _payload(transcript, home, "SessionStart"), path)
    assert done.returncode == 0, done.stderr
    assert LOST in _context(done.stdout)
    pre = _run_plugin_hook(home, "PreCompact", _payload(transcript, home, "PreCompact"), path)
    assert pre.returncode == 0, pre.stderr
    assert pre.stdout.startswith("ctxkeep: when you summarise this conversation")
    assert [r["event"] for r in ledger_lines(home)] == ["session-start", "pre-compact"]


def _bare_python() -> str:
    """A python3 without ctxkeep's dependencies (the system one, here)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if Path(candidate).exists():
            probe = subprocess.run(
                [candidate, "-c", "import click, msgspec"], check=False, capture_output=True
            )
            if probe.returncode != 0:
                return candidate
    pytest.skip("no python3 without click/msgspec on this machine to stand for a bare one")


def test_a_bare_python3_falls_back_to_ctxkeep_on_path(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    transcript = claude_transcript(home, lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3))
    ctxkeep_script = Path(sys.executable).parent / "ctxkeep"
    assert ctxkeep_script.is_file()
    path = [_bin(tmp_path, python3=_bare_python(), ctxkeep=str(ctxkeep_script))]
    done = _run_plugin_hook(home, "SessionStart", _payload(transcript, home, "SessionStart"), path)
    assert done.returncode == 0, done.stderr
    assert LOST in _context(done.stdout)


def test_with_no_ctxkeep_at_all_the_hook_still_exits_0_silently(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    transcript = claude_transcript(home, lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3))
    path = [_bin(tmp_path, python3=_bare_python())]
    for event in ("SessionStart", "PreCompact"):
        done = _run_plugin_hook(home, event, _payload(transcript, home, event), path)
        assert (done.returncode, done.stdout) == (0, "")
        assert "ctxkeep cannot run" in done.stderr


def test_the_plugin_mcp_server_serves_the_audit_tools(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")
    import anyio
    from mcp import Client, StdioServerParameters

    home = make_home(tmp_path)
    server = _manifest()["mcpServers"]["ctxkeep"]
    bin_dir = _bin(tmp_path, python3=sys.executable)
    params = StdioServerParameters(
        command=str(bin_dir / server["command"]),
        args=[_expand(a) for a in server["args"]],
        env={
            "HOME": str(home.root),
            "CTXKEEP_HOME": str(home.ctxkeep),
            "CLAUDE_PLUGIN_ROOT": str(ROOT),
        },
        cwd=str(home.project),
    )

    async def main() -> list[str]:
        async with Client(params, read_timeout_seconds=120) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    names = anyio.run(main)
    assert "compaction_audit" in names
    assert "compaction_audit_diff" in names
