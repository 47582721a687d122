"""``ctxkeep hook``: run inside Claude Code and Codex, and install it there.

``session-start`` and ``pre-compact`` are what the harness runs (JSON on stdin). They never
fail the session: any error goes to ``CTXKEEP_HOME/hook-errors.log`` and they exit 0 with
no output, even on a bad option. They import only what they need (docs/hooks.md):
the heavy modules are imported inside the commands, not here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ctxkeep.cli import exit_codes

__all__ = ["hook_group"]


class _NeverFailCommand(click.Command):
    """A hook command: a usage error is logged and exits 0 (exit 2 would block a compaction)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.ClickException as exc:
            from ctxkeep.hooks.protocol import log_hook_error

            log_hook_error(self.name or "hook", f"bad arguments {args!r}: {exc.format_message()}")
            raise click.exceptions.Exit(0) from None


def _run_hook(event: str, handler: Callable[[Any], str | None]) -> None:
    """Read the harness's JSON from stdin, run ``handler``, print what it returns."""
    from ctxkeep.hooks.protocol import MAX_STDIN_BYTES, log_hook_error, parse_hook_input

    if sys.stdin is None or sys.stdin.isatty():
        click.echo(
            f"ctxkeep hook {event} reads the hook JSON a harness sends on stdin; "
            "install it with `ctxkeep hook install` (docs/hooks.md).",
            err=True,
        )
        return
    try:
        output = handler(parse_hook_input(sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)))
    except Exception:
        log_hook_error(event)
        return
    if output:
        sys.stdout.write(output + "\n")
        sys.stdout.flush()


_MAX_BYTES_HELP = "Print at most this many bytes (the whole output, JSON included)."


@click.group("hook")
def hook_group() -> None:
    """Restore what a compaction lost, inside Claude Code and Codex.

    After a compaction the harness runs `ctxkeep hook session-start`, which audits the new
    summary and puts back, verbatim, the user's standing instructions it lost (and warns
    about items it invented). Before one, `ctxkeep hook pre-compact` asks the summariser to
    keep them. Set it up with `ctxkeep hook install --harness claude-code` (or codex);
    see docs/hooks.md.
    """


@hook_group.command("session-start", cls=_NeverFailCommand)
@click.option(
    "--max-bytes", type=click.IntRange(min=1), default=2000, show_default=True, help=_MAX_BYTES_HELP
)
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=2.0,
    show_default=True,
    help="Seconds to wait for the newest compaction to reach the transcript.",
)
def session_start_command(max_bytes: int, wait: float) -> None:
    """The SessionStart hook: after a compaction (source "compact"), print the hook JSON
    whose additionalContext restores the user's standing instructions the new summary
    lost, verbatim, and cautions about its high-confidence unsupported items.

    Prints nothing when nothing was lost or the source is not "compact". Never fails:
    errors are logged under CTXKEEP_HOME and it exits 0. Each run is recorded in
    CTXKEEP_HOME/restores.jsonl.
    """
    from ctxkeep.hooks.restore import session_start

    _run_hook("session-start", lambda hook: session_start(hook, max_bytes=max_bytes, wait=wait))


@hook_group.command("pre-compact", cls=_NeverFailCommand)
@click.option(
    "--max-bytes", type=click.IntRange(min=1), default=2000, show_default=True, help=_MAX_BYTES_HELP
)
def pre_compact_command(max_bytes: int) -> None:
    """The PreCompact hook: print the session's standing instructions as a short
    "preserve these verbatim" directive for the summariser.

    Never blocks the compaction (always exits 0); harness releases that ignore PreCompact
    output are unharmed. Each run is recorded in CTXKEEP_HOME/restores.jsonl, so an audit
    can tell whether the summary then kept them.
    """
    from ctxkeep.hooks.restore import pre_compact

    _run_hook("pre-compact", lambda hook: pre_compact(hook, max_bytes=max_bytes))


def _target_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option(
        "--project",
        type=click.Path(file_okay=False, path_type=Path),
        default=".",
        show_default=True,
        help="The project folder for --scope project.",
    )(func)
    func = click.option(
        "--scope",
        type=click.Choice(["user", "project"]),
        default="user",
        show_default=True,
        help="user: your settings for every project; project: this project's settings.",
    )(func)
    return click.option(
        "--harness",
        type=click.Choice(["claude-code", "codex"]),
        required=True,
        help="Which harness's settings to change.",
    )(func)


def _dry_run_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--dry-run", is_flag=True, help="Print the change as a diff and write nothing."
    )(func)


def _apply(plan: Any, dry_run: bool) -> None:
    from ctxkeep.hooks.install import apply_plan

    for note in plan.notes:
        click.echo(note)
    if dry_run:
        for change in plan.changes:
            click.echo(change.diff(), nl=False)
        if plan.changes:
            click.echo("(dry run: nothing written)")
        return
    backups = apply_plan(plan)
    for change in plan.changes:
        verb = "removed" if change.after is None else "wrote"
        click.echo(f"{verb} {change.path}")
    for backup in backups:
        click.echo(f"backup: {backup}")


def _refuse(exc: Exception) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(exit_codes.USAGE)


@hook_group.command("install")
@_target_options
@click.option(
    "--command",
    "command",
    default=None,
    help="How the harness should run ctxkeep (default: this installation, by "
    "absolute path), e.g. 'ctxkeep' or 'uvx ctxkeep'.",
)
@_dry_run_option
def install_command(
    harness: str, scope: str, project: Path, command: str | None, dry_run: bool
) -> None:
    """Install the SessionStart (compact) and PreCompact hooks into a harness's settings.

    Merges into what is there and keeps every other hook; a second install changes
    nothing; each changed file is backed up under CTXKEEP_HOME first; a file that does
    not parse is refused (exit 2) and left untouched. Codex also needs
    [features] hooks = true in config.toml: set here, comments and all else kept.
    """
    from ctxkeep.hooks.install import SettingsError, default_command, plan_install

    try:
        plan = plan_install(
            harness, scope, command or default_command(), Path.home(), project.resolve()
        )
    except SettingsError as exc:
        _refuse(exc)
    _apply(plan, dry_run)


@hook_group.command("uninstall")
@_target_options
@_dry_run_option
def uninstall_command(harness: str, scope: str, project: Path, dry_run: bool) -> None:
    """Remove ctxkeep's hooks from a harness's settings.

    A file still as ctxkeep left it gets its original bytes back (or is removed, if
    ctxkeep created it); a file edited since loses only ctxkeep's hooks (backed up first).
    """
    from ctxkeep.hooks.install import SettingsError, plan_uninstall

    try:
        plan = plan_uninstall(harness, scope, Path.home(), project.resolve())
    except SettingsError as exc:
        _refuse(exc)
    _apply(plan, dry_run)


def _status_text(rows: list[Any]) -> str:
    lines: list[str] = []
    shown: set[str] = set()
    for row in rows:
        if row.harness not in shown:
            shown.add(row.harness)
            version = row.version or "unknown"
            lines.append(f"{row.harness}: version {version} ({row.version_source})")
            lines.append(f'  restores after compaction (source "compact"): {row.compact}')
            if row.flag:
                lines.append(f"  {row.flag}")
        if row.problem:
            state = f"cannot tell: {row.problem}"
        elif row.installed:
            state = "installed (" + ", ".join(sorted(row.installed)) + ")"
        else:
            state = "not installed"
        lines.append(f"  {row.scope:<8} {row.path}: {state}")
    return "\n".join(lines)


@hook_group.command("status")
@click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The project folder whose settings to look at.",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format: text for a person, json for scripts.",
)
def status_command(project: Path, output: str) -> None:
    """Say where ctxkeep's hooks are installed (per harness and scope), the harness
    version found and whether that version is known to run SessionStart hooks with
    source "compact" (it says "unknown" when nothing here shows it)."""
    from dataclasses import asdict

    from ctxkeep.hooks.install import status

    rows = status(Path.home(), project.resolve())
    if output == "json":
        click.echo(json.dumps([asdict(r) for r in rows], indent=2, sort_keys=True))
    else:
        click.echo(_status_text(rows))
