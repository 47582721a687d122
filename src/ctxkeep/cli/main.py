"""The ``ctxkeep`` command group. Each command lives in its own module under ``cli/``.

A command's module is imported when that command runs; ``--help`` lists the commands
from the summaries in :data:`COMMANDS` and imports none of them. A command module
imports at its top only click and the CLI's own helpers, and imports what its command
runs inside the command, so ``ctxkeep audit --help`` loads no reader, rule, compactor
or guard either (docs/design.md, "Start-up"; tests/test_startup.py holds both).
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import click

from ctxkeep._version import __version__


class Lazy(NamedTuple):
    """Where a command lives, and the first sentence of its help: ``--help`` lists the
    commands from these without importing one (tests/test_startup.py holds each summary
    to its command's docstring)."""

    module: str
    attribute: str
    summary: str


# The order is the one --help lists them in.
COMMANDS: dict[str, Lazy] = {
    "audit": Lazy(
        "ctxkeep.cli.audit",
        "audit_command",
        "Audit every compaction in the session logs at PATHS (files or folders).",
    ),
    "sweep": Lazy(
        "ctxkeep.cli.sweep",
        "sweep_command",
        "Audit every session log under FOLDERS, ranked by damage: errors first, then "
        "constraints lost, then warnings.",
    ),
    "diff": Lazy(
        "ctxkeep.cli.diff",
        "diff_command",
        "Show one compaction of the session log at PATH in detail: what the summary "
        "replaced (counts by kind), every constraint kept / reworded / lost beside the line "
        "it came from, every invented item, every ghost reference.",
    ),
    "log-check": Lazy(
        "ctxkeep.cli.log_check",
        "log_check",
        "Check that the session logs at PATHS are whole: every tool call has its result and "
        "every result its call, no seq gap or duplicate, every line readable (CK001).",
    ),
    "show": Lazy(
        "ctxkeep.cli.show",
        "show",
        "Show what each session log at PATHS holds: its format, events by kind, injected "
        "context, and every compaction with trigger, tokens before -> after and status.",
    ),
    "bench": Lazy(
        "ctxkeep.cli.bench",
        "bench",
        "Benchmark compactors and the auditor on generated agent sessions.",
    ),
    "check-messages": Lazy(
        "ctxkeep.cli.guard_check",
        "check_messages",
        "Check the message list at PATH the way the guard checks a compaction result: every "
        "tool call answered, no orphan result, a role order the API accepts.",
    ),
    "guard-stats": Lazy(
        "ctxkeep.cli.guard_stats",
        "guard_stats",
        "Show the guard's statistics store ($CTXKEEP_HOME/stats.sqlite3): how many "
        "compactions it holds by provenance (run, test) and what the real ones recommend.",
    ),
    "score": Lazy(
        "ctxkeep.cli.score",
        "score_command",
        "Score every message in FILE against --task and show why each would be kept.",
    ),
    "compact": Lazy(
        "ctxkeep.cli.compact",
        "compact_command",
        "Compact the messages in FILE to --target-bytes and/or --target-tokens.",
    ),
    "replay": Lazy(
        "ctxkeep.cli.replay",
        "replay_command",
        "Compact FILE again with the scores recorded in --scores, at another budget or "
        "threshold: no scorer is called.",
    ),
    "receipts": Lazy(
        "ctxkeep.cli.receipts",
        "receipts_command",
        "Summarise the receipts file PATH: each trusted run (scorer, kept and dropped, bytes "
        "before -> after, why messages were kept or dropped) and every line that is not "
        "trusted (a torn last line, a run cut short).",
    ),
    "doctor": Lazy(
        "ctxkeep.cli.doctor",
        "doctor_command",
        "Show the effective scoring configuration (the key masked), whether the endpoint "
        "answers, and with --probe the score it gives one test message.",
    ),
    "mcp": Lazy(
        "ctxkeep.cli.mcp",
        "mcp_command",
        "Serve the audit to an agent as MCP tools on stdin/stdout: compaction_audit, "
        "compaction_audit_sweep, compaction_audit_diff, compaction_audit_log_check.",
    ),
    "hook": Lazy(
        "ctxkeep.cli.hook",
        "hook_group",
        "Restore what a compaction lost, inside Claude Code and Codex.",
    ),
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (click's documented pattern).

    ``lazy_commands`` maps each command name to its :class:`Lazy`, in the order
    ``--help`` lists them; the listing is written from their summaries, as click would
    write it from the commands' docstrings.
    """

    def __init__(self, *args: Any, lazy_commands: dict[str, Lazy], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.lazy_commands)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy_commands.get(cmd_name)
        if target is None:
            return None
        command = getattr(importlib.import_module(target.module), target.attribute)
        if not isinstance(command, click.Command):  # pragma: no cover - a wiring mistake
            raise TypeError(f"{target.module}.{target.attribute} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if not self.lazy_commands:
            return
        limit = formatter.width - 6 - max(len(name) for name in self.lazy_commands)
        rows = [
            (name, click.Command(name, help=lazy.summary).get_short_help_str(limit))
            for name, lazy in self.lazy_commands.items()
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


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
