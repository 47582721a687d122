"""``ctxkeep audit``: audit every compaction in the session logs at PATHS.

The options shared with ``sweep`` and ``log-check`` are defined here once.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from ctxkeep.cli import exit_codes
from ctxkeep.cli.options import (
    ledger_options,
    log_format_option,
    masked_output,
    show_secrets_option,
    summary_index_option,
)
from ctxkeep.report import render, report_named, report_names

if TYPE_CHECKING:  # what a command runs loads when it runs (docs/design.md, "Start-up")
    from ctxkeep.config import AuditConfig
    from ctxkeep.engine import AuditResult
    from ctxkeep.log.ledger import Ledger

__all__ = [
    "AuditOptions",
    "audit_command",
    "audit_options",
    "finish",
    "read_ledger_option",
    "run_audit",
    "usage_error",
]

F = TypeVar("F", bound=Callable[..., Any])


def usage_error(message: str) -> NoReturn:
    """Say what is wrong on stderr and exit 2."""
    click.echo(f"ctxkeep: error: {message}", err=True)
    sys.exit(exit_codes.USAGE)


def _split(values: Sequence[str]) -> list[str]:
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def read_ledger_option(ledger: Path | None, no_ledger: bool) -> Ledger | None:
    """The restore ledger ``--ledger`` / ``--no-ledger`` ask for: the one given (a usage
    error when it cannot be read), none, or by default ``CTXKEEP_HOME/restores.jsonl``
    when it exists (not read: a note, and the audit goes on without it)."""
    from ctxkeep.log.ledger import Ledger, ledger_path

    if no_ledger:
        if ledger is not None:
            usage_error("--ledger and --no-ledger contradict each other")
        return None
    path = ledger if ledger is not None else ledger_path()
    if ledger is None and not path.is_file():
        return None
    try:
        return Ledger.read(path)
    except (OSError, UnicodeDecodeError) as exc:
        if ledger is not None:
            usage_error(f"--ledger: {exc}")
        click.echo(f"ctxkeep: note: restore ledger {path} not read: {exc}", err=True)
        return None


def audit_options(*, rule_selection: bool = True, ledger: bool = True) -> Callable[[F], F]:
    """The options of every auditing command: format, fail-on, rules, baseline, reading,
    and (``ledger``) the restore ledger."""

    def decorate(func: F) -> F:
        options = [
            click.option(
                "--format",
                "report_format",
                type=click.Choice(report_names()),
                default="text",
                show_default=True,
                help="Report format.",
            ),
            click.option(
                "--fail-on",
                type=click.Choice(["error", "warn", "info"]),
                default=None,
                help="Exit 1 when a finding is at or above this level "
                "[default: the config's fail-on, else warn].",
            ),
            click.option(
                "--baseline",
                type=click.Path(dir_okay=False, path_type=Path),
                default=None,
                help="Leave out findings whose fingerprints are in this baseline file.",
            ),
            click.option(
                "--write-baseline",
                type=click.Path(dir_okay=False, path_type=Path),
                default=None,
                help="Write the fingerprints of every finding to this file and exit 0.",
            ),
            log_format_option,
            summary_index_option,
            show_secrets_option,
        ]
        if ledger:
            options.append(ledger_options)
        if rule_selection:
            options += [
                click.option(
                    "--select",
                    multiple=True,
                    help="Run only these rules (ids, names or id prefixes; repeat or "
                    "separate with commas). Replaces the config's select.",
                ),
                click.option(
                    "--ignore",
                    multiple=True,
                    help="Do not run these rules (added to the config's ignore).",
                ),
            ]
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


class AuditOptions:
    """The parsed shared options, with the config file applied."""

    def __init__(
        self,
        *,
        report_format: str,
        fail_on: str | None,
        baseline: Path | None,
        write_baseline: Path | None,
        log_format: str | None,
        summary_index: int | None,
        show_secrets: bool = False,
        select: Sequence[str] = (),
        ignore: Sequence[str] = (),
        ledger: Path | None = None,
        no_ledger: bool = True,  # commands without --ledger read none
    ) -> None:
        from ctxkeep.base.findings import Severity
        from ctxkeep.config import ConfigError, find_config
        from ctxkeep.log.adapters.base import ReadOptions

        self.show_secrets = show_secrets
        self.ledger: Ledger | None = read_ledger_option(ledger, no_ledger)
        try:
            self.config: AuditConfig = find_config(Path.cwd())
        except ConfigError as exc:
            usage_error(str(exc))
        self.report_format = report_format
        level = fail_on or (self.config.fail_on.value if self.config.fail_on else "warn")
        self.fail_on = Severity(level)
        self.write_baseline = write_baseline
        self.log_format = log_format
        self.read_options = ReadOptions(summary_index=summary_index)
        self.select = _split(select)
        self.ignore = _split(ignore)
        self.baseline: frozenset[str] = frozenset()
        self.stale_baseline: str | None = None
        if baseline is not None:
            from ctxkeep.baseline import BaselineError, read_baseline

            try:
                read = read_baseline(baseline)
            except BaselineError as exc:
                usage_error(str(exc))
            if read.stale is None:
                self.baseline = read.fingerprints
            else:
                self.stale_baseline = f"{baseline}: {read.stale}"

    def guard_inputs(self, inputs: Sequence[str]) -> None:
        """Refuse to write a baseline over one of the logs being read."""
        if self.write_baseline is None:
            return
        target = self.write_baseline.resolve()
        for given in inputs:
            if Path(given).resolve() == target:
                usage_error(f"--write-baseline {self.write_baseline} is a session log being read")


def finish(result: AuditResult, opts: AuditOptions) -> NoReturn:
    """Write the report, the baseline if asked, and exit with the right code."""
    try:
        sys.stdout.write(
            masked_output(render(opts.report_format, result, show_secrets=True), opts.show_secrets)
        )
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (``| head``) went away: say nothing more on stdout, keep the code.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if opts.stale_baseline is not None:
        click.echo(f"ctxkeep: warning: baseline {opts.stale_baseline}", err=True)
    elif opts.baseline and not any(s.baselined for s in result.sessions):
        click.echo("ctxkeep: note: the baseline matched no finding; is it stale?", err=True)
    if opts.write_baseline is not None:
        from ctxkeep.baseline import write_baseline

        n = write_baseline(opts.write_baseline, result.findings)
        click.echo(f"ctxkeep: wrote {n} fingerprint(s) to {opts.write_baseline}", err=True)
        sys.exit(exit_codes.OK if result.readable else exit_codes.USAGE)
    if not result.readable:
        click.echo("ctxkeep: error: no session could be read", err=True)
        sys.exit(exit_codes.USAGE)
    sys.exit(exit_codes.FINDINGS if result.at_or_above(opts.fail_on) else exit_codes.OK)


def run_audit(paths: Sequence[str], opts: AuditOptions) -> AuditResult:
    """The library call behind ``audit`` and ``log-check``, with usage errors reported."""
    from ctxkeep.engine import audit
    from ctxkeep.rules import UnknownRuleError

    opts.guard_inputs(paths)
    try:
        return audit(
            list(paths),
            select=opts.select or None,
            ignore=opts.ignore or None,
            config=opts.config,
            log_format=opts.log_format,
            options=opts.read_options,
            baseline=opts.baseline,
            ledger=opts.ledger,
            detail=report_named(opts.report_format).detail,
        )
    except UnknownRuleError as exc:
        usage_error(str(exc))


@click.command("audit")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@audit_options()
def audit_command(paths: tuple[str, ...], **options: Any) -> None:
    """Audit every compaction in the session logs at PATHS (files or folders).

    For each session: compactions started / summarised / failed (and by trigger),
    constraints kept, peak context usage, and the findings of rules CK001-CK011
    (docs/rules.md). With ctxkeep's hooks installed, their restore ledger
    (CTXKEEP_HOME/restores.jsonl) is read too, unless --no-ledger: what they restored and
    asked to keep counts as context, and the report shows whether prevention worked.
    Exit 0 when no finding is at or above --fail-on, 1 when one is, 2 on a usage error
    or when nothing could be read.
    """
    opts = AuditOptions(**options)
    finish(run_audit(paths, opts), opts)
