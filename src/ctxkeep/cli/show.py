"""``ctxkeep show``: what a session log holds, as ctxkeep reads it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from ctxkeep.cli import exit_codes
from ctxkeep.cli.options import log_format_option, summary_index_option, text_or_json_option

if TYPE_CHECKING:  # what a command runs loads when it runs (docs/design.md, "Start-up")
    from ctxkeep.log.model import Session


def _fmt(n: int | None) -> str:
    return "?" if n is None else f"{n:,}"


def _text(session: Session) -> str:
    from ctxkeep.log.model import located
    from ctxkeep.summary import session_overview

    o = session_overview(session)
    kinds = ", ".join(f"{k} {v}" for k, v in o["by_kind"].items()) or "none"
    lines = [
        f"{o['path']}  [{o['format']}]",
        f"  events: {o['events']} ({kinds}); injected: {o['injected']}",
    ]
    for c in session.compactions:
        summary = (
            "opaque" if c.opaque else "none" if c.summary is None else f"{len(c.summary)} chars"
        )
        lines.append(
            f"  compaction {c.index}: {c.trigger or 'unknown trigger'}, {c.status.value}, "
            f"tokens {_fmt(c.tokens_before)} -> {_fmt(c.tokens_after)}, "
            f"replaced {len(c.shadowed_seqs)} events, summary {summary}"
        )
    if not session.compactions:
        lines.append("  no compactions")
    for p in session.problems:
        lines.append(f"  problem: {located(session.path, p.line)}: {p.reason}")
    return "\n".join(lines)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@text_or_json_option
@log_format_option
@summary_index_option
def show(
    paths: tuple[str, ...], output: str, log_format: str | None, summary_index: int | None
) -> None:
    """Show what each session log at PATHS holds: its format, events by kind, injected
    context, and every compaction with trigger, tokens before -> after and status.

    A folder is searched for session logs. Unreadable lines are listed with their line
    number; exits 2 only when nothing at all could be read.
    """
    import msgspec

    from ctxkeep.log.adapters.base import ReadOptions
    from ctxkeep.log.model import Session
    from ctxkeep.log.reader import discover, read_session
    from ctxkeep.summary import session_overview

    options = ReadOptions(summary_index=summary_index)
    sessions: list[Session] = []
    for found in discover(paths):
        if isinstance(found, tuple):
            path, problem = found
            sessions.append(Session(str(path), "unknown", problems=(problem,)))
        else:
            sessions.append(read_session(found, format=log_format, options=options))
    if output == "json":
        data = [session_overview(s) for s in sessions]
        sys.stdout.write(msgspec.json.format(msgspec.json.encode(data), indent=2).decode() + "\n")
    else:
        click.echo("\n".join(_text(s) for s in sessions))
    if not any(s.events for s in sessions):
        sys.exit(exit_codes.USAGE)
