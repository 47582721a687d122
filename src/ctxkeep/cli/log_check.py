"""``ctxkeep log-check``: is each session log whole? (rule CK001 only)."""

from __future__ import annotations

from typing import Any

import click

from ctxkeep.cli.audit import AuditOptions, audit_options, finish, run_audit

__all__ = ["log_check"]


@click.command("log-check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@audit_options(rule_selection=False, ledger=False)
def log_check(paths: tuple[str, ...], **options: Any) -> None:
    """Check that the session logs at PATHS are whole: every tool call has its result
    and every result its call, no seq gap or duplicate, every line readable (CK001).

    Run it before trusting an audit: a truncated log makes every other finding suspect.
    Exit codes as for audit.
    """
    opts = AuditOptions(**options, select=("CK001",))
    finish(run_audit(paths, opts), opts)
