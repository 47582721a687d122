"""Start-up: ``ctxkeep --help`` imports the CLI and nothing it does not run.

What a command costs to start is held here by the modules it loads, not by a clock
(benchmarks/startup.py times it: at most 2x ``python -c "import click"``).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_LOADED = """
import json, sys
from ctxkeep.cli.main import cli
try:
    cli(sys.argv[1:])
except SystemExit:
    pass
names = ("ctxkeep", "msgspec", "tiktoken")
print(json.dumps(sorted(m for m in sys.modules if m.startswith(names))))
"""

# What listing the commands needs: the CLI, and the registries whose names are choices.
HELP_MODULES = {
    "ctxkeep",
    "ctxkeep._lazy",
    "ctxkeep._version",
    "ctxkeep.cli",
    "ctxkeep.cli.exit_codes",
    "ctxkeep.cli.main",
    "ctxkeep.cli.options",
    "ctxkeep.log",
    "ctxkeep.log.adapters",
    "ctxkeep.paths",
    "ctxkeep.report",
    "ctxkeep.scorers",
}


def _loaded(*args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _LOADED, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_help_loads_only_the_cli_and_the_name_registries() -> None:
    loaded = _loaded("--help")
    commands = {m for m in loaded if m.startswith("ctxkeep.cli.")} - HELP_MODULES
    assert loaded - commands == HELP_MODULES


@pytest.mark.parametrize("command", ["audit", "sweep", "diff", "show", "compact", "bench"])
def test_a_commands_help_loads_no_reader_rule_compactor_or_guard(command: str) -> None:
    loaded = _loaded(command, "--help")
    heavy = {
        m
        for m in loaded
        if m.startswith(
            (
                "ctxkeep.engine",
                "ctxkeep.rules",
                "ctxkeep.compactor",
                "ctxkeep.verify",
                "ctxkeep.log.reader",
                "ctxkeep.log.adapters.",
                "ctxkeep.report.",
                "tiktoken",
            )
        )
    }
    assert heavy == set()
