"""Run ctxkeep from the Claude Code plugin (this repository, installed with /plugin install).

The plugin's hooks and MCP server run ``python3 ${CLAUDE_PLUGIN_ROOT}/hooks/run_ctxkeep.py
ARGS``. This finds a ctxkeep to run, in order:

1. the plugin's own source (``src/`` beside this folder), when this ``python3`` has
   ctxkeep's dependencies (``pip install ctxkeep`` or ``pip install -e .`` once);
2. a ``ctxkeep`` command on ``PATH``.

A hook (``hook session-start`` / ``hook pre-compact``) never fails the session: when no
ctxkeep can run it exits 0 with nothing on stdout and says why on stderr (Claude Code
shows hook stderr in its transcript view). See docs/hooks.md.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOOK_COMMANDS = ("session-start", "pre-compact")
MISSING = (
    "ctxkeep plugin: ctxkeep cannot run: install it for python3 (pip install 'ctxkeep[mcp]') "
    "or put a ctxkeep command on PATH (docs/hooks.md)\n"
)


def _is_hook(args: list[str]) -> bool:
    return len(args) >= 2 and args[0] == "hook" and args[1] in HOOK_COMMANDS


def _from_source(args: list[str]) -> int | None:
    """Run the plugin's own ctxkeep in this interpreter; None if it cannot be imported."""
    sys.path.insert(0, str(ROOT / "src"))
    try:
        from ctxkeep.cli.main import cli
    except ImportError:
        sys.path.remove(str(ROOT / "src"))
        return None
    try:
        cli.main(args=args, prog_name="ctxkeep")  # click ends by raising SystemExit
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 0


def main() -> int:
    args = sys.argv[1:]
    code = _from_source(args)
    if code is not None:
        return code
    command = shutil.which("ctxkeep")
    if command is None:
        sys.stderr.write(MISSING)
        return 0 if _is_hook(args) else 1
    done = subprocess.run([command, *args], check=False)
    return 0 if _is_hook(args) else done.returncode


if __name__ == "__main__":
    sys.exit(main())
