"""What every rule is: metadata as class attributes, logic in one pure ``check`` method.

A rule never prints, filters, sorts or picks exit codes: it yields findings and the engine
does the rest. The subclass hook checks the metadata once, when the rule class is defined,
so a malformed rule fails at import rather than in the middle of an audit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import ClassVar

from ctxkeep.base.findings import (
    Confidence,
    Finding,
    ItemDetail,
    Severity,
    fingerprint_of,
    session_identity,
)
from ctxkeep.log.model import Event
from ctxkeep.rules.context import RuleContext

__all__ = ["Rule"]

_ID = re.compile(r"CK\d{3}")
_NAME = re.compile(r"[a-z]+(?:-[a-z]+)*")


class Rule:
    """Base of every audit rule.

    Subclasses set ``id`` (``CK`` and three digits), ``name`` (kebab-case), ``level`` (the
    highest severity it reports), ``summary`` (one line) and a docstring whose paragraphs
    say what it catches, why it matters and give an example: the docstring is the rule's
    page in docs/rules.md.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    level: ClassVar[Severity]
    summary: ClassVar[str]
    level_note: ClassVar[str | None] = None
    """How the level varies, when it does (for the docs): e.g. CK003's error/warn split."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        where = f"rule class {cls.__qualname__}"
        rule_id = cls.__dict__.get("id")
        if not isinstance(rule_id, str) or not _ID.fullmatch(rule_id):
            raise TypeError(f"{where}: id must look like 'CK001', got {rule_id!r}")
        name = cls.__dict__.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise TypeError(f"{where}: name must be kebab-case, got {name!r}")
        if not isinstance(cls.__dict__.get("level"), Severity):
            raise TypeError(f"{where}: level must be a Severity")
        summary = cls.__dict__.get("summary")
        if not isinstance(summary, str) or not summary or "\n" in summary:
            raise TypeError(f"{where}: summary must be one non-empty line")
        if not (cls.__doc__ or "").strip():
            raise TypeError(f"{where}: the docstring is the rule's documentation; write it")

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the findings of this rule for one session."""
        raise NotImplementedError

    def finding(
        self,
        ctx: RuleContext,
        message: str,
        *,
        level: Severity | None = None,
        compaction: int | None = None,
        events: Iterable[Event] = (),
        seqs: Iterable[int] = (),
        lines: Iterable[int] = (),
        items: Iterable[str] = (),
        confidence: Confidence = Confidence.HIGH,
        items_detail: Iterable[ItemDetail] = (),
        restored: Iterable[str] = (),
    ) -> Finding:
        """A finding of this rule; ``events`` adds their seqs and (non-zero) lines."""
        event_list = list(events)
        all_seqs = sorted({*seqs, *(e.seq for e in event_list)})
        all_lines = sorted({*lines, *(e.line for e in event_list)} - {0})
        item_tuple = tuple(items)
        return Finding(
            rule_id=self.id,
            rule=self.name,
            level=level or self.level,
            message=message,
            path=ctx.session.path,
            compaction=compaction,
            seqs=tuple(all_seqs),
            lines=tuple(all_lines),
            items=item_tuple,
            confidence=confidence,
            fingerprint=fingerprint_of(
                session_identity(ctx.session.path, ctx.session.session_id),
                self.id,
                compaction,
                item_tuple,
            ),
            items_detail=tuple(items_detail),
            restored=tuple(restored),
        )
