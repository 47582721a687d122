"""The ctxkeep event log (docs/formats.md section 5): the project's own format.

JSONL, ``seq`` strictly increasing from 1, an optional ``session`` header line. Gaps and
duplicates in ``seq`` are kept as they are: rule CK001 reports them. A compaction is
started by ``compaction/start``, summarised when its end has a summary, failed when its end
has an error or never comes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxkeep.log.adapters.base import (
    ReadOptions,
    SessionBuilder,
    as_int,
    as_str,
    iter_objects,
    json_text,
)
from ctxkeep.log.model import (
    Compaction,
    CompactionStatus,
    EventKind,
    Prune,
    Session,
    ranges_to_seqs,
)
from ctxkeep.log.source import Head

__all__ = ["ADAPTER", "NAME"]

NAME = "ctxkeep"

_EVENT_TYPES = frozenset(
    {
        "message",
        "tool/call",
        "tool/result",
        "usage",
        "compaction/start",
        "compaction/end",
        "prune",
    }
)
_TRIGGERS = frozenset({"auto", "manual", "reactive"})


@dataclass
class _Start:
    seq: int
    line: int
    trigger: str | None
    tokens_before: int | None


@dataclass
class _End:
    seq: int
    line: int
    record: dict[str, Any]


class _NativeAdapter:
    name = NAME

    def sniff(self, head: Head) -> bool:
        for rec in head.records[:5]:
            if not isinstance(rec, dict):
                return False
            kind = as_str(rec.get("type"))
            if kind == "session" and rec.get("v") == 1:
                return True
            if kind in _EVENT_TYPES and isinstance(rec.get("seq"), int):
                return True
        return False

    def read(self, path: Path, display_path: str, options: ReadOptions) -> Session:
        b = SessionBuilder(display_path, NAME)
        starts: dict[str, _Start] = {}
        ends: dict[str, _End] = {}
        order: list[str] = []
        for line, rec in iter_objects(path, b):
            kind = as_str(rec.get("type"))  # a list or object here is just not a type
            if kind == "session":
                b.session_id = as_str(rec.get("id"))
                b.context_window = as_int(rec.get("context_window"))
                continue
            if kind is None or kind not in _EVENT_TYPES:
                continue  # unknown types are kept in the file and ignored here
            seq = as_int(rec.get("seq"))
            if seq is None:
                b.problem(line, f"{kind} event without an integer 'seq'")
                continue
            self._event(b, rec, kind, seq, line, starts, ends, order)
        self._compactions(b, starts, ends, order)
        return b.build()

    def _event(
        self,
        b: SessionBuilder,
        rec: dict[str, Any],
        kind: str,
        seq: int,
        line: int,
        starts: dict[str, _Start],
        ends: dict[str, _End],
        order: list[str],
    ) -> None:
        if kind == "message":
            b.add(
                EventKind.MESSAGE,
                seq=seq,
                line=line,
                role=as_str(rec.get("role")),
                text=as_str(rec.get("text")) or "",
                injected=as_str(rec.get("injected")),
                tokens=as_int(rec.get("tokens")),
            )
        elif kind == "tool/call":
            name = as_str(rec.get("name"))
            raw_input = rec.get("input")
            text = json_text(raw_input) if raw_input is not None else ""
            b.add(
                EventKind.TOOL_CALL,
                seq=seq,
                line=line,
                role="assistant",
                text=text,
                call_id=as_str(rec.get("call_id")),
                tool_name=name,
            )
        elif kind == "tool/result":
            b.add(
                EventKind.TOOL_RESULT,
                seq=seq,
                line=line,
                role="tool",
                text=as_str(rec.get("text")) or "",
                call_id=as_str(rec.get("call_id")),
                is_error=rec.get("is_error") is True,
            )
        elif kind == "usage":
            window = as_int(rec.get("context_window"))
            if window is not None and b.context_window is None:
                b.context_window = window
            b.add(
                EventKind.USAGE,
                seq=seq,
                line=line,
                tokens=as_int(rec.get("context_tokens")),
                context_window=window,
            )
        elif kind == "compaction/start":
            cid = _compaction_id(rec, seq)
            trigger = as_str(rec.get("trigger"))
            if trigger is not None and trigger not in _TRIGGERS:
                b.problem(line, f"unknown compaction trigger {trigger!r}")
            if cid in starts:
                b.problem(line, f"compaction {cid!r} started twice")
            else:
                order.append(cid)
            starts[cid] = _Start(seq, line, trigger, as_int(rec.get("tokens_before")))
            b.add(EventKind.COMPACTION_START, seq=seq, line=line, source_id=cid)
        elif kind == "compaction/end":
            cid = _compaction_id(rec, seq)
            if cid not in starts:
                order.append(cid)
            ends[cid] = _End(seq, line, rec)
            b.add(EventKind.COMPACTION_END, seq=seq, line=line, source_id=cid)
        elif kind == "prune":
            try:
                pruned = ranges_to_seqs(_ranges(rec.get("pruned_seqs")))
            except ValueError as exc:
                b.problem(line, f"prune: pruned_seqs: {exc}")
                pruned = ()
            b.prunes.append(
                Prune(
                    seq=seq,
                    line=line,
                    pruned_seqs=pruned,
                    tokens_pruned=as_int(rec.get("tokens_pruned")),
                )
            )
            b.add(EventKind.PRUNE, seq=seq, line=line, text=as_str(rec.get("placeholder")) or "")

    def _compactions(
        self,
        b: SessionBuilder,
        starts: dict[str, _Start],
        ends: dict[str, _End],
        order: list[str],
    ) -> None:
        usage = [(e.seq, e.tokens) for e in b.events if e.kind is EventKind.USAGE and e.tokens]
        previous: str | None = None
        for index, cid in enumerate(order, start=1):
            start = starts.get(cid)
            end = ends.get(cid)
            first_seq = start.seq if start else end.seq if end else 0
            rec = end.record if end else {}
            summary = as_str(rec.get("summary"))
            error = as_str(rec.get("error"))
            declared = as_str(rec.get("status"))
            if end is None:
                status = CompactionStatus.STARTED
            elif error is not None or declared == "failed":
                status = CompactionStatus.FAILED
            elif declared == "noop":
                status = CompactionStatus.NOOP
            elif summary is not None or declared == "summarised":
                status = CompactionStatus.SUMMARISED
            else:
                status = CompactionStatus.FAILED
                error = "compaction ended with neither a summary nor an error"
            try:
                shadowed = ranges_to_seqs(_ranges(rec.get("shadowed_seqs")))
            except ValueError as exc:
                b.problem(end.line if end else 0, f"compaction/end: shadowed_seqs: {exc}")
                shadowed = ()
            before = start.tokens_before if start else None
            if before is None:
                before = next((t for s, t in reversed(usage) if s < first_seq), None)
            after = as_int(rec.get("tokens_after"))
            if after is None and end is not None:
                after = next((t for s, t in usage if s > end.seq), None)
            b.compactions.append(
                Compaction(
                    index=index,
                    id=cid,
                    start_seq=first_seq,
                    end_seq=end.seq if end else None,
                    status=status,
                    trigger=start.trigger if start else None,
                    summary=summary,
                    shadowed_seqs=shadowed,
                    previous_summary=previous,
                    tokens_before=before,
                    tokens_after=after,
                    error=error,
                    line=start.line if start else end.line if end else 0,
                    summary_line=end.line if end else 0,
                )
            )
            if summary is not None:
                previous = summary


def _compaction_id(rec: dict[str, Any], seq: int) -> str:
    cid = rec.get("compaction_id")
    if isinstance(cid, str | int) and not isinstance(cid, bool):
        return str(cid)
    return f"seq-{seq}"


def _ranges(value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("must be a list of [first, last] ranges")
    return [r if isinstance(r, list) else [r, r] for r in value]


ADAPTER = _NativeAdapter()
