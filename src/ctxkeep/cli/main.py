"""The ``ctxkeep`` command group. Each command lives in its own module under ``cli/``."""

from __future__ import annotations

import click

from ctxkeep._version import __version__
from ctxkeep.cli.audit import audit_command
from ctxkeep.cli.bench import bench
from ctxkeep.cli.compact import compact_command
from ctxkeep.cli.diff import diff_command
from ctxkeep.cli.doctor import doctor_command
from ctxkeep.cli.guard_check import check_messages
from ctxkeep.cli.guard_stats import guard_stats
from ctxkeep.cli.log_check import log_check
from ctxkeep.cli.mcp import mcp_command
from ctxkeep.cli.receipts import receipts_command
from ctxkeep.cli.replay import replay_command
from ctxkeep.cli.score import score_command
from ctxkeep.cli.show import show
from ctxkeep.cli.sweep import sweep_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ctxkeep")
def cli() -> None:
    """ctxkeep: make context compaction of LLM agent sessions trustworthy.

    Audit the compactions in any harness's session logs (audit, sweep, diff,
    log-check), compact message lists by relevance (score, compact, replay), and
    read what is in a log (show).
    """


COMMANDS: tuple[click.Command, ...] = (
    audit_command,
    sweep_command,
    diff_command,
    log_check,
    show,
    bench,
    check_messages,
    guard_stats,
    score_command,
    compact_command,
    replay_command,
    receipts_command,
    doctor_command,
    mcp_command,
)
for _command in COMMANDS:
    cli.add_command(_command)


def main() -> None:
    cli()
