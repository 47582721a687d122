"""``ctxkeep compact``: compact a message list to a budget (JSONL out, stats on stderr).

Also the helpers the other compactor commands (score, replay) share: reading a message
file, the scorer options, and writing messages and stats.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from ctxkeep.cli import exit_codes

if TYPE_CHECKING:
    from ctxkeep.log.message_list import MessageList

__all__ = [
    "compact_command",
    "default_task",
    "fail",
    "make_cli_summarizer",
    "read_messages",
    "repair_line",
    "report_problems",
    "scorer_options",
    "stats_line",
    "summarizer_options",
    "write_messages",
]

F = TypeVar("F", bound=Callable[..., Any])

SUMMARIZER_NAMES = ("extractive", "openai-chat")
"""``ctxkeep.compactor.abstractive.SUMMARIZERS``, spelt out: ``--help`` loads no compactor."""


def fail(message: str) -> NoReturn:
    """Say what is wrong on stderr and exit 2."""
    click.echo(f"ctxkeep: error: {message}", err=True)
    sys.exit(exit_codes.USAGE)


def read_messages(path: str) -> MessageList:
    """A JSON array, an object with ``messages``, or JSONL (one message a line); ``-`` is
    stdin. Read by :func:`ctxkeep.log.message_list.read_message_list`, the one reader of
    message lists; exits 2 when nothing can be read (after saying every problem met)."""
    from ctxkeep.log.message_list import read_message_list

    loaded = read_message_list(path)
    if loaded.error is not None:
        report_problems(loaded.problems)
        fail(loaded.error)
    return loaded


def report_problems(problems: list[str]) -> None:
    for problem in problems:
        click.echo(f"ctxkeep: error: {problem}", err=True)


def default_task(messages: list[Any]) -> str:
    """The first user message that is not a tool result: an agent session's task."""
    from ctxkeep.base.messages import message_parts

    for message in messages:
        parts = message_parts(message)
        if parts.role == "user" and not parts.result_ids and parts.text.strip():
            return parts.text
    return ""


def scorer_options(func: F) -> F:
    """The scoring options of score and compact: ``--scorer``, ``--url``,
    ``--model``, ``--timeout``, ``--batch-size``, ... (the key: CTXKEEP_SCORE_KEY only, so
    it never shows in a process listing or shell history)."""
    from ctxkeep.scorers import scorer_names

    options = [
        click.option(
            "--scorer",
            type=click.Choice(scorer_names()),
            default="lexical",
            show_default=True,
            help="How messages are scored.",
        ),
        click.option(
            "--url",
            default=None,
            help="Score endpoint for http / openai-chat [env CTXKEEP_SCORE_URL].",
        ),
        click.option(
            "--model", default=None, help="Model name for openai-chat [env CTXKEEP_SCORE_MODEL]."
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=None,
            help="Seconds per scorer request [env CTXKEEP_SCORE_TIMEOUT, default 10].",
        ),
        click.option(
            "--batch-size",
            type=click.IntRange(min=1),
            default=8,
            show_default=True,
            help="Messages per request to a remote scorer.",
        ),
        click.option(
            "--task", default=None, help="What the work is about [default: the first user message]."
        ),
        click.option(
            "--keep-recent",
            type=click.IntRange(min=0),
            default=4,
            show_default=True,
            help="The last N messages are always kept.",
        ),
        click.option(
            "--pin",
            "pins",
            multiple=True,
            help="A regex: messages matching it are always kept (repeatable).",
        ),
        click.option("--no-pins", is_flag=True, help="Switch off pinning (built-in and --pin)."),
        click.option(
            "--pin-flags",
            default="i",
            show_default=True,
            help="Regex flags for pins, letters of 'imsx'.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def make_cli_scorer(name: str, url: str | None, model: str | None, timeout: float | None) -> Any:
    from ctxkeep.scorers import ScorerOptions, make_scorer

    return make_scorer(name, ScorerOptions.from_env(url=url, model=model, timeout=timeout))


def summarizer_options(func: F) -> F:
    """``--summarizer`` and its endpoint options, configured as the scorer is (the key:
    CTXKEEP_SUMMARY_KEY only)."""
    options = [
        click.option(
            "--summarizer",
            type=click.Choice(SUMMARIZER_NAMES),
            default="extractive",
            show_default=True,
            help="Who writes the summary of what was dropped: ctxkeep's extractive summary, "
            "or an OpenAI-compatible /v1/chat/completions server whose summary is audited "
            "first (lost standing instructions added verbatim, invented paths and "
            "identifiers removed, the budget kept). If the server fails, the extractive "
            "summary is used and a warning printed.",
        ),
        click.option(
            "--summary-url",
            default=None,
            help="Chat server for --summarizer openai-chat [env CTXKEEP_SUMMARY_URL; key: "
            "env CTXKEEP_SUMMARY_KEY].",
        ),
        click.option(
            "--summary-model",
            default=None,
            help="Model name for --summarizer openai-chat [env CTXKEEP_SUMMARY_MODEL].",
        ),
        click.option(
            "--summary-timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=None,
            help="Seconds for the whole summary request [env CTXKEEP_SUMMARY_TIMEOUT, default 60].",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def make_cli_summarizer(
    name: str, url: str | None, model: str | None, timeout: float | None
) -> Any:
    from ctxkeep.compactor.abstractive import SummarizerOptions, make_summarizer

    return make_summarizer(name, SummarizerOptions.from_env(url=url, model=model, timeout=timeout))


def repair_line(result: Any) -> str | None:
    """What the summariser wrote and what its audit changed, or None (extractive)."""
    repair = result.repair
    if repair is None or not repair.used:
        return None
    who = repair.summarizer + (f" (model {repair.model})" if repair.model else "")
    changes = [
        f"{len(repair.appended)} lost instruction(s) appended",
        f"{len(repair.removed)} invented item(s) removed",
    ]
    if repair.instructions_cut:
        changes.append(f"{repair.instructions_cut} lost instruction(s) did not fit")
    return f"ctxkeep: summary by {who}, audited: {', '.join(changes)}"


def write_messages(messages: tuple[Any, ...]) -> None:
    """One JSON message a line on stdout, keys in their original order."""
    out = sys.stdout
    for message in messages:
        out.write(json.dumps(message, ensure_ascii=False) + "\n")
    out.flush()


def stats_line(result: Any) -> str:
    s = result.stats
    tokens = "tokens" if s.token_method != "estimate" else "tokens (estimate: bytes/4)"
    parts = [
        f"{s.messages_before} -> {s.messages_after} messages",
        f"{s.bytes_before:,} -> {s.bytes_after:,} bytes",
        f"{s.tokens_before:,} -> {s.tokens_after:,} {tokens}",
        f"kept {s.kept}, dropped {s.dropped}, pinned {s.pinned}",
        f"scorer {s.scorer}",
    ]
    if s.requests:
        parts.append(f"{s.requests} requests (~{s.scorer_tokens:,} tokens sent)")
    if s.shortened:
        parts.append(f"shortened {s.shortened}")
    if s.budget == "hard":
        parts.append("hard budget")
    if s.degraded:
        parts.append(f"DEGRADED: {s.degraded_reason}")
    if s.over_budget:
        over = []
        if s.over_budget_bytes:
            over.append(f"{s.over_budget_bytes:,} bytes")
        if s.over_budget_tokens:
            over.append(f"{s.over_budget_tokens:,} tokens")
        parts.append(f"OVER BUDGET by {' and '.join(over)} (protected messages alone)")
    return "ctxkeep: " + "; ".join(parts)


def same_file(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name the same file (so one must not be written over the other)."""
    if a == "-" or b == "-":
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


@click.command("compact")
@click.argument("file", type=str)
@click.option(
    "--target-bytes",
    type=click.IntRange(min=0),
    default=None,
    help="Budget in UTF-8 bytes of message text.",
)
@click.option(
    "--target-tokens", type=click.IntRange(min=0), default=None, help="Budget in o200k tokens."
)
@scorer_options
@click.option(
    "--min-confidence",
    type=click.FloatRange(0, 1),
    default=0.35,
    show_default=True,
    help="Keep messages the scorer is less sure about than this.",
)
@click.option(
    "--summary-bytes",
    type=click.IntRange(min=0),
    default=1024,
    show_default=True,
    help="Largest summary of what was dropped.",
)
@click.option(
    "--summary-role",
    default=None,
    help="Role of the summary message [default: system; user for Anthropic].",
)
@click.option(
    "--receipt",
    type=str,
    default=None,
    help="Append a receipt (one JSON line per message + one per run) to this file.",
)
@click.option("--run-id", default=None, help="Name the run in the receipt.")
@click.option(
    "--hard-budget",
    is_flag=True,
    help="Never exceed the target: protected messages give way (long tool output elided, "
    "messages cut to their pinned spans, then dropped). Only the system messages and the "
    "last user message are never cut; if they alone are over, nothing is written and the "
    "exit code is 3.",
)
@summarizer_options
def compact_command(
    file: str,
    target_bytes: int | None,
    target_tokens: int | None,
    scorer: str,
    url: str | None,
    model: str | None,
    timeout: float | None,
    task: str | None,
    keep_recent: int,
    pins: tuple[str, ...],
    no_pins: bool,
    pin_flags: str,
    min_confidence: float,
    batch_size: int,
    summary_bytes: int,
    summary_role: str | None,
    receipt: str | None,
    run_id: str | None,
    hard_budget: bool,
    summarizer: str,
    summary_url: str | None,
    summary_model: str | None,
    summary_timeout: float | None,
) -> None:
    """Compact the messages in FILE to --target-bytes and/or --target-tokens.

    FILE is a JSON array of messages, an object with "messages", or JSONL (OpenAI chat,
    Anthropic messages or ctxkeep events); "-" reads stdin. System messages, the last
    --keep-recent messages and pinned ones (paths, tracebacks, error codes, URLs,
    constraints, --pin) are kept; the rest are scored against --task and the most
    valuable kept, tool calls with their results, and a summary of the instructions and
    facts of what went takes the place of the first dropped message. By default
    protected messages stay whole even over the target (the stats say by how much);
    --hard-budget makes the target a hard limit. With --summarizer openai-chat a model
    writes the summary and ctxkeep audits it before use (docs/compactor.md, "Repair");
    the receipt keeps its text, so replay needs no model. The compacted messages go to
    stdout as JSONL, the stats to stderr, so it pipes. Exits 2 on unreadable input (bad lines are
    reported with their line and the rest is still compacted), 3 when a hard budget
    cannot hold.
    """
    from ctxkeep.compactor import compact

    if target_bytes is None and target_tokens is None:
        fail("give --target-bytes N or --target-tokens N")
    if receipt is not None and same_file(receipt, file):
        fail(f"--receipt {receipt} is the input file; it would be written while being read")
    loaded = read_messages(file)
    report_problems(loaded.problems)
    role = summary_role or ("user" if loaded.anthropic else "system")
    result = compact(
        loaded.messages,
        task if task is not None else default_task(loaded.messages),
        target_bytes=target_bytes,
        target_tokens=target_tokens,
        keep_recent=keep_recent,
        batch_size=batch_size,
        min_confidence=min_confidence,
        summary_bytes=summary_bytes,
        summary_role=role,
        pin_patterns=pins,
        enable_pinning=not no_pins,
        pin_flags=pin_flags,
        scorer=make_cli_scorer(scorer, url, model, timeout),
        receipt_path=receipt,
        run_id=run_id,
        budget="hard" if hard_budget else "soft",
        summarizer=make_cli_summarizer(summarizer, summary_url, summary_model, summary_timeout),
    )
    if not result.fits:
        why = next(p for p in result.problems if p.startswith("hard budget cannot hold"))
        click.echo(f"ctxkeep: error: {why}", err=True)
        sys.exit(exit_codes.BUDGET)
    write_messages(result.messages)
    for problem in result.problems:
        click.echo(f"ctxkeep: warning: {problem}", err=True)
    click.echo(stats_line(result), err=True)
    repaired = repair_line(result)
    if repaired:
        click.echo(repaired, err=True)
    if result.receipt_path:
        click.echo(
            f"ctxkeep: receipt appended to {result.receipt_path} (run {result.run_id})", err=True
        )
    if loaded.problems:
        sys.exit(exit_codes.USAGE)
