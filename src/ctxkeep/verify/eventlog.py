"""The guard's own compactions, appended as a ctxkeep event log (docs/formats.md section 5).

Each guarded call appends, in one write, the messages of its input not logged before
(``message``, ``tool/call``, ``tool/result`` events), then one ``compaction/start`` /
``compaction/end`` pair per strategy that ran: ``summarised`` with the added text as the
summary and the dropped messages' events as ``shadowed_seqs`` for the result taken,
``noop`` for a result that did not shrink, ``failed`` with the reason as ``error`` for one
that raised or was rolled back. ``ctxkeep audit`` reads the file like any other session.

The file is only ever appended to. Seqs continue from the largest seq already in it. The
log remembers which messages of the current context it has written (by content), so a
message kept across compactions is written once; a new :class:`EventLog` on an existing
file does not know them and writes the next input in full. One writer per file: two
processes appending to the same log would repeat seqs (CK001 would say so).
"""

from __future__ import annotations

import os
import uuid
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ctxkeep.base.messages import (
    dialect_of,
    message_prose,
    message_role,
    message_text,
    tool_calls,
    tool_results,
)
from ctxkeep.base.paths import append_lines
from ctxkeep.log.adapters.native import ADAPTER as NATIVE
from ctxkeep.log.model import seqs_to_ranges
from ctxkeep.log.source import Record, iter_records, read_head
from ctxkeep.verify.measure import compare_messages, fingerprint

if TYPE_CHECKING:
    from ctxkeep.verify.result import Attempt, GuardedResult

__all__ = ["EventLog", "message_events"]

_encode = msgspec.json.Encoder(order="sorted").encode
_NATIVE_MESSAGE_TYPES = frozenset({"message", "tool/call", "tool/result"})


def _now() -> datetime:
    return datetime.now(UTC)


def _arguments(text: str) -> Any:
    """A tool call's input as an object, as the format wants it; raw text is wrapped."""
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return {"arguments": text}
    return value if isinstance(value, dict) else {"arguments": value}


def message_events(message: Any) -> list[dict[str, Any]]:
    """One message as ctxkeep events (without ``seq``): its text, calls and results.

    A message the format cannot hold (no known role) yields no event.
    """
    if dialect_of(message) == "ctxkeep":
        if message.get("type") not in _NATIVE_MESSAGE_TYPES:
            return []
        return [{k: v for k, v in message.items() if k not in ("seq", "ts")}]
    role = message_role(message)
    events: list[dict[str, Any]] = []
    if role in ("system", "developer"):
        events.append({"type": "message", "role": "system", "text": message_text(message)})
    elif role in ("user", "tool"):
        for result in tool_results(message):
            event: dict[str, Any] = {"type": "tool/result", "text": result.text}
            if result.id is not None:
                event["call_id"] = result.id
            if result.is_error:
                event["is_error"] = True
            events.append(event)
        prose = message_prose(message)
        if role == "user" and (prose or not events):
            events.append({"type": "message", "role": "user", "text": prose})
    elif role == "assistant":
        prose = message_prose(message)
        calls = tool_calls(message)
        if prose or not calls:
            events.append({"type": "message", "role": "assistant", "text": prose})
        for call in calls:
            event = {
                "type": "tool/call",
                "name": call.name or "",
                "input": _arguments(call.arguments),
            }
            if call.id is not None:
                event["call_id"] = call.id
            events.append(event)
    return events


def _holds_something_else(path: Path) -> bool:
    """An existing, non-empty file that is not a ctxkeep event log (a harness's own
    session log given by mistake): appending our events would corrupt it."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return False
    except OSError:
        return False
    return not NATIVE.sniff(read_head(path))


class EventLog:
    """Appends guarded compactions to one ctxkeep event log file.

    ``clock`` gives the ``ts`` of each event (tests pass a fixed one).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        trigger: str = "auto",
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self.path = Path(path)
        if _holds_something_else(self.path):
            raise ValueError(f"{self.path} is not a ctxkeep event log: refusing to append to it")
        self.trigger = trigger
        self._clock = clock
        self._next_seq: int | None = None
        # the current context as last written: content fingerprint -> seqs, in order
        self._context: dict[str, deque[tuple[int, ...]]] = {}

    def _first_free_seq(self) -> int:
        if self._next_seq is None:
            last = 0
            if self.path.exists():
                for item in iter_records(self.path):
                    if isinstance(item, Record) and isinstance(item.value, dict):
                        seq = item.value.get("seq")
                        if isinstance(seq, int) and not isinstance(seq, bool):
                            last = max(last, seq)
            self._next_seq = last + 1
        return self._next_seq

    def record(self, original: Sequence[Any], result: GuardedResult) -> None:
        """Append the input's new messages and one start/end pair per attempt."""
        seq = self._first_free_seq()
        ts = self._clock().isoformat().replace("+00:00", "Z")
        lines: list[dict[str, Any]] = []
        if seq == 1 and not (self.path.exists() and self.path.stat().st_size):
            lines.append(
                {"type": "session", "v": 1, "id": uuid.uuid4().hex, "harness": "ctxkeep.guard"}
            )

        def emit(event: dict[str, Any]) -> int:
            nonlocal seq
            lines.append({**event, "seq": seq, "ts": ts})
            seq += 1
            return seq - 1

        seqs_of: list[tuple[int, ...]] = []
        for message in original:
            queue = self._context.get(fingerprint(message))
            if queue:
                seqs_of.append(queue.popleft())
            else:
                seqs_of.append(tuple(emit(e) for e in message_events(message)))
        for attempt in result.attempts:
            compaction_id = uuid.uuid4().hex[:16]
            emit(
                {
                    "type": "compaction/start",
                    "compaction_id": compaction_id,
                    "trigger": self.trigger,
                    "tokens_before": result.before.tokens,
                    "messages_before": result.before.messages,
                    "strategy": attempt.strategy,
                }
            )
            emit(self._end(compaction_id, attempt, original, result, seqs_of))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # on a fresh line: a torn last line swallowed the next append (issue 14)
        append_lines(self.path, b"".join(_encode(line) + b"\n" for line in lines))
        # only what reached the file counts as written
        self._remember(original, result, seqs_of)
        self._next_seq = seq

    def _end(
        self,
        compaction_id: str,
        attempt: Attempt,
        original: Sequence[Any],
        result: GuardedResult,
        seqs_of: list[tuple[int, ...]],
    ) -> dict[str, Any]:
        end: dict[str, Any] = {"type": "compaction/end", "compaction_id": compaction_id}
        if attempt.after is not None:
            end["tokens_after"] = attempt.after.tokens
            end["messages_after"] = attempt.after.messages
        if attempt.outcome == "compacted":
            diff = compare_messages(original, result.messages)
            shadowed = [s for i in diff.dropped for s in seqs_of[i]]
            end["status"] = "summarised"
            end["summary"] = "\n\n".join(message_text(result.messages[i]) for i in diff.added)
            end["shadowed_seqs"] = seqs_to_ranges(shadowed)
        elif attempt.outcome == "noop":
            end["status"] = "noop"
        else:
            end["status"] = "failed"
            end["error"] = attempt.reason
        return end

    def _remember(
        self,
        original: Sequence[Any],
        result: GuardedResult,
        seqs_of: list[tuple[int, ...]],
    ) -> None:
        """The context is now the result: kept messages keep their seqs; added ones (the
        summary) have no events of their own and are never written as messages."""
        context: dict[str, deque[tuple[int, ...]]] = defaultdict(deque)
        if result.success:
            diff = compare_messages(original, result.messages)
            for out_index, message in enumerate(result.messages):
                source = diff.kept.get(out_index)
                context[fingerprint(message)].append(() if source is None else seqs_of[source])
        else:
            for message, seqs in zip(original, seqs_of, strict=True):
                context[fingerprint(message)].append(seqs)
        self._context = dict(context)
