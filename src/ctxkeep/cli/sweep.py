"""``ctxkeep sweep``: audit every session under some folders, worst first."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ctxkeep.base.paths import harness_session_folders
from ctxkeep.cli.audit import AuditOptions, audit_options, finish, usage_error
from ctxkeep.report import report_named

if TYPE_CHECKING:
    from ctxkeep.engine import SessionAudit

__all__ = ["default_folders", "sweep_command"]


def default_folders() -> list[Path]:
    """Where Claude Code and Codex keep their session logs, under the user's home."""
    return [f.root for f in harness_session_folders()]


class _Progress:
    """A progress bar on stderr, only when stderr is a terminal and the report is text."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._bar: Any = None

    def found(self, total: int) -> None:
        if self.enabled and total > 1:
            self._bar = click.progressbar(
                length=total, label="auditing", file=sys.stderr, show_pos=True
            )
            self._bar.__enter__()

    def done(self, _audited: SessionAudit | None) -> None:
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


@click.command("sweep")
@click.argument("folders", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Sessions audited at once, one process each [default: one per CPU core].",
)
@audit_options()
def sweep_command(folders: tuple[str, ...], jobs: int | None, **options: Any) -> None:
    """Audit every session log under FOLDERS, ranked by damage: errors first, then
    constraints lost, then warnings.

    With no FOLDERS: ~/.claude/projects and ~/.codex/sessions (those that exist). The
    report ends with the totals of compactions by trigger and status across all
    sessions: whether threshold compaction ever fired, and whether it failed. The
    restore ledger is read as for audit (--ledger, --no-ledger). Exit codes as for
    audit.
    """
    from ctxkeep.engine import sweep
    from ctxkeep.rules import UnknownRuleError

    opts = AuditOptions(**options)
    given = list(folders) or [str(p) for p in default_folders() if p.is_dir()]
    if not given:
        usage_error("no folders given and neither ~/.claude/projects nor ~/.codex/sessions exists")
    opts.guard_inputs(given)
    progress = _Progress(sys.stderr.isatty() and not report_named(opts.report_format).machine)
    try:
        result = sweep(
            given,
            select=opts.select or None,
            ignore=opts.ignore or None,
            config=opts.config,
            log_format=opts.log_format,
            options=opts.read_options,
            baseline=opts.baseline,
            ledger=opts.ledger,
            jobs=jobs,
            on_found=progress.found,
            on_done=progress.done,
            detail=report_named(opts.report_format).detail,
        )
    except UnknownRuleError as exc:
        usage_error(str(exc))
    finally:
        progress.close()
    finish(result, opts)
