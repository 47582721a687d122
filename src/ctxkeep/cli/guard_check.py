"""``ctxkeep check-messages``: would the API accept this message list, and where can it be cut?

The same check the guard applies to every compaction result, for a message list in a
file (a JSON array, an object with ``messages``, or JSONL one message a line), plus the
count of safe split points (round-group boundaries).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ctxkeep.cli import exit_codes
from ctxkeep.cli.compact import report_problems
from ctxkeep.cli.options import text_or_json_option

if TYPE_CHECKING:  # what a command runs loads when it runs (docs/design.md, "Start-up")
    from ctxkeep.verify.validity import Api

__all__ = ["check_messages"]

_APIS: dict[str, Api] = {"openai": "openai", "anthropic": "anthropic", "ctxkeep": "ctxkeep"}


@click.command("check-messages")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--api",
    type=click.Choice(["auto", "openai", "anthropic", "ctxkeep"]),
    default="auto",
    show_default=True,
    help="The API whose rules apply (auto: read from the messages).",
)
@text_or_json_option
def check_messages(path: Path, api: str, output: str) -> None:
    """Check the message list at PATH the way the guard checks a compaction result:
    every tool call answered, no orphan result, a role order the API accepts. Also counts
    the safe split points (cuts that separate no tool call from its result).

    Exits 0 when the API would accept the list, 1 when it would not, 2 when the file
    cannot be read.
    """
    import msgspec

    from ctxkeep.cli.compact import read_messages
    from ctxkeep.verify import detect_api, measure, sequence_problems, split_points

    loaded = read_messages(str(path))
    report_problems(loaded.problems)
    if loaded.problems:  # the same answer as compact: a message that cannot be read
        sys.exit(exit_codes.USAGE)
    messages = loaded.messages
    target = detect_api(messages) if api == "auto" else _APIS[api]
    problems = sequence_problems(messages, target)
    points = split_points(messages)
    size = measure(messages)
    if output == "json":
        data = {
            "path": str(path),
            "api": target,
            "messages": size.messages,
            "tokens": size.tokens,
            "valid": not problems,
            "problems": [
                {"code": p.code, "index": p.index, "subject": p.subject, "detail": p.detail}
                for p in problems
            ],
            "split_points": list(points),
        }
        sys.stdout.write(msgspec.json.encode(data, order="sorted").decode() + "\n")
    else:
        verdict = "valid" if not problems else f"{len(problems)} problems"
        click.echo(f"{path}: {size}, {target} API: {verdict}")
        for p in problems:
            click.echo(f"{path}: message {p.index}: [{p.code}] {p.detail}")
        where = f" (first {points[0]}, last {points[-1]})" if points else ""
        click.echo(f"safe split points: {len(points)}{where}")
    sys.exit(exit_codes.FINDINGS if problems else exit_codes.OK)
