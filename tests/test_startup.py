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

# What listing the commands needs: the CLI's entry point and nothing of a command.
HELP_MODULES = {"ctxkeep", "ctxkeep._lazy", "ctxkeep._version", "ctxkeep.cli", "ctxkeep.cli.main"}


def _loaded(*args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _LOADED, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_help_loads_no_command() -> None:
    assert _loaded("--help") == HELP_MODULES


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


def test_each_listed_summary_is_its_commands_first_sentence() -> None:
    """``--help`` lists the commands from ``Lazy.summary`` without importing them: each
    summary must be what click would take from the command's docstring."""
    import click

    from ctxkeep.cli.main import COMMANDS, LazyGroup, cli

    ctx = click.Context(cli)
    for name, lazy in COMMANDS.items():
        command = cli.get_command(ctx, name)
        assert command is not None
        assert lazy.summary == command.get_short_help_str(limit=10_000), name
        if isinstance(command, LazyGroup):  # a plain group lists its imported commands
            for sub_name in command.list_commands(ctx):
                sub = command.get_command(ctx, sub_name)
                assert sub is not None
                lazy_sub = command.lazy_commands[sub_name]
                assert lazy_sub.summary == sub.get_short_help_str(limit=10_000), sub_name


def test_the_listing_is_the_one_click_writes_from_the_commands() -> None:
    import click

    from ctxkeep.cli.main import cli

    ctx = click.Context(cli)
    ours, clicks = click.HelpFormatter(), click.HelpFormatter()
    cli.format_commands(ctx, ours)
    click.Group.format_commands(cli, ctx, clicks)  # imports every command
    assert ours.getvalue() == clicks.getvalue()
    assert "audit" in ours.getvalue()
