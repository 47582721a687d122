"""The ``ctxkeep`` command group. Each command lives in its own module under ``cli/``.

A command's module is imported when that command runs, or when ``--help`` lists them
all. So a command module imports at its top only click and the CLI's own helpers, and
imports what its command runs inside the command: ``ctxkeep --help`` loads no reader,
rule, compactor or guard (docs/design.md, "Start-up"; tests/test_startup.py holds it).
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from ctxkeep._version import __version__

# name -> (module, attribute); the order is the one --help lists them in
COMMANDS: dict[str, tuple[str, str]] = {
    "audit": ("ctxkeep.cli.audit", "audit_command"),
    "sweep": ("ctxkeep.cli.sweep", "sweep_command"),
    "diff": ("ctxkeep.cli.diff", "diff_command"),
    "log-check": ("ctxkeep.cli.log_check", "log_check"),
    "show": ("ctxkeep.cli.show", "show"),
    "bench": ("ctxkeep.cli.bench", "bench"),
    "check-messages": ("ctxkeep.cli.guard_check", "check_messages"),
    "guard-stats": ("ctxkeep.cli.guard_stats", "guard_stats"),
    "score": ("ctxkeep.cli.score", "score_command"),
    "compact": ("ctxkeep.cli.compact", "compact_command"),
    "replay": ("ctxkeep.cli.replay", "replay_command"),
    "receipts": ("ctxkeep.cli.receipts", "receipts_command"),
    "doctor": ("ctxkeep.cli.doctor", "doctor_command"),
    "mcp": ("ctxkeep.cli.mcp", "mcp_command"),
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (click's documented pattern).

    ``lazy_commands`` maps each command name to its ``(module, attribute)``, in the
    order ``--help`` lists them.
    """

    def __init__(self, *args: Any, lazy_commands: dict[str, tuple[str, str]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.lazy_commands)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy_commands.get(cmd_name)
        if target is None:
            return None
        module, attribute = target
        command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):  # pragma: no cover - a wiring mistake
            raise TypeError(f"{module}.{attribute} is not a click command")
        return command


@click.group(
    cls=LazyGroup,
    lazy_commands=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="ctxkeep")
def cli() -> None:
    """ctxkeep: make context compaction of LLM agent sessions trustworthy.

    Audit the compactions in any harness's session logs (audit, sweep, diff,
    log-check), compact message lists by relevance (score, compact, replay), and
    read what is in a log (show).
    """


def main() -> None:
    cli()
