"""The hook protocol both harnesses speak: JSON on stdin, JSON (or text) on stdout.

Claude Code and Codex run a hook command through the shell with one JSON object on
stdin: ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` and the
event's own fields (``source`` for ``SessionStart``: ``startup``, ``resume``, ``clear``
or ``compact``; ``trigger`` and ``custom_instructions`` for ``PreCompact``). A
``SessionStart`` hook adds context to the new window by printing
``{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "..."}}``.

A hook must never get in the session's way: whatever goes wrong inside ctxkeep is written
to ``CTXKEEP_HOME/hook-errors.log`` and the hook exits 0 with no output (an exit of 2
would block a compaction). See docs/hooks.md.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ctxkeep.base.paths import append_lines, ctxkeep_home
from ctxkeep.base.secrets import mask_secrets

__all__ = [
    "ERROR_LOG_NAME",
    "MAX_STDIN_BYTES",
    "HookInput",
    "HookInputError",
    "fit_lines",
    "log_hook_error",
    "parse_hook_input",
    "session_start_output",
]

ERROR_LOG_NAME = "hook-errors.log"
MAX_STDIN_BYTES = 1 << 20
"""Hook input is a few hundred bytes; more than this is not a harness talking."""
_ERROR_LOG_LIMIT = 1 << 20


class HookInputError(ValueError):
    """The hook's stdin is not the JSON object a harness sends."""


@dataclass(frozen=True, slots=True)
class HookInput:
    """The fields of a hook's stdin that ctxkeep uses (others are ignored)."""

    event: str
    session_id: str
    transcript_path: str | None = None
    cwd: str | None = None
    source: str | None = None
    trigger: str | None = None
    custom_instructions: str | None = None


def _optional_str(raw: dict[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise HookInputError(f"{key} must be a string, got {type(value).__name__}")
    return value


def parse_hook_input(data: bytes) -> HookInput:
    """Parse a hook's stdin; raises :class:`HookInputError` on anything else."""
    if len(data) > MAX_STDIN_BYTES:
        raise HookInputError(f"stdin holds {len(data):,} bytes, more than a hook input")
    try:
        raw = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HookInputError(f"stdin is not JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise HookInputError("stdin is not a JSON object")
    return HookInput(
        event=_optional_str(raw, "hook_event_name") or "",
        session_id=_optional_str(raw, "session_id") or "",
        transcript_path=_optional_str(raw, "transcript_path") or None,
        cwd=_optional_str(raw, "cwd"),
        source=_optional_str(raw, "source"),
        trigger=_optional_str(raw, "trigger"),
        custom_instructions=_optional_str(raw, "custom_instructions"),
    )


def session_start_output(context: str) -> str:
    """The JSON a ``SessionStart`` hook prints to add ``context`` to the new window."""
    payload = {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}
    }
    return json.dumps(payload, ensure_ascii=False)


def fit_lines(
    head: str, lines: list[str], more: str, render: Callable[[str], str], max_bytes: int
) -> tuple[str, int] | None:
    """``head`` and as many of ``lines`` (in order) as fit in ``max_bytes`` once rendered.

    When lines are left out, ``more`` (a format string with ``{n}``, the number left
    out) ends the text. Returns the text and how many lines it holds, or None when not
    even one line fits.
    """

    def fits(text: str) -> bool:
        return len(render(text).encode("utf-8")) <= max_bytes

    whole = "\n".join([head, *lines])
    if lines and fits(whole):
        return whole, len(lines)
    best: tuple[str, int] | None = None
    for n in range(1, len(lines)):
        text = "\n".join([head, *lines[:n], more.format(n=len(lines) - n)])
        if not fits(text):
            break
        best = text, n
    return best


def log_hook_error(event: str, message: str | None = None) -> None:
    """Append the current exception (or ``message``) to ``CTXKEEP_HOME/hook-errors.log``.

    Never raises: a hook that cannot even log still exits 0 with no output. The log is
    started afresh (the old one kept as ``.1``) past 1 MB. Secrets are masked (a
    traceback can quote the text it failed on); one append of whole lines, under a lock,
    as the ledger's (:func:`ctxkeep.base.paths.append_lines`).
    """
    try:
        path = ctxkeep_home(create=True) / ERROR_LOG_NAME
        if path.exists() and path.stat().st_size > _ERROR_LOG_LIMIT:
            path.replace(path.with_name(ERROR_LOG_NAME + ".1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        body = message if message is not None else traceback.format_exc()
        entry = mask_secrets(f"{stamp} {event}: {body.rstrip()}\n")[0]
        append_lines(path, entry.encode("utf-8", "replace"), mode=0o600, lock=True)
    except Exception:  # the hook must stay silent and exit 0 whatever happens
        pass
