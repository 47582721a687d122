"""What every rule is: metadata and thresholds as class attributes, logic in one method.

A rule declares the unit it checks, as sqlfluff's crawlers do: a :class:`SessionRule`
checks a whole session (``check_session``), a :class:`CompactionRule` one compaction at a
time (``check_compaction``, given the compaction's :class:`~ctxkeep.rules.context.CompactionView`).
The engine walks the session and its compactions and calls each rule on its unit; no rule
loops over the compactions itself.

A rule never prints, filters, sorts or picks exit codes: it yields findings and the engine
does the rest. The subclass hook checks the metadata once, when the rule class is defined,
so a malformed rule fails at import rather than in the middle of an audit.
"""

from __future__ import annotations

import inspect
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
from ctxkeep.log.model import Event, Session
from ctxkeep.rules.context import CompactionView

__all__ = ["CompactionRule", "Rule", "SessionRule"]

_ID = re.compile(r"CK\d{3}")
_NAME = re.compile(r"[a-z]+(?:-[a-z]+)*")


class Rule:
    """Base of every audit rule; subclass :class:`SessionRule` or :class:`CompactionRule`.

    Subclasses set ``id`` (``CK`` and three digits), ``name`` (kebab-case), ``level`` (the
    highest severity it reports), ``summary`` (one line) and a docstring whose paragraphs
    say what it catches, why it matters and give an example: the docstring is the rule's
    page in docs/rules.md. A rule's thresholds are its own public numeric class
    attributes, each with a docstring under it (the docs print both); the rule's docstring
    and ``level_note`` write them as ``{name}`` fields (``{nearly_as_large:.0%}``), filled
    in by :meth:`documentation`, so each figure is written once, in code.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    level: ClassVar[Severity]
    summary: ClassVar[str]
    level_note: ClassVar[str | None] = None
    """How the level varies, when it does (for the docs): e.g. CK003's error/warn split."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__ == __name__:
            return  # SessionRule and CompactionRule: the traversals, not rules
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
        try:
            cls.documentation()
            cls.level_text()
        except (KeyError, IndexError, ValueError) as exc:
            raise TypeError(f"{where}: the docstring names an unknown threshold: {exc}") from None
        if not issubclass(cls, SessionRule | CompactionRule):
            raise TypeError(f"{where}: subclass SessionRule or CompactionRule (its unit)")

    @classmethod
    def thresholds(cls) -> dict[str, int | float]:
        """The rule's thresholds by name: its own public numeric class attributes."""
        return {
            name: value
            for name, value in vars(cls).items()
            if not name.startswith("_")
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        }

    @classmethod
    def documentation(cls) -> str:
        """The rule's page: its docstring with its thresholds' values filled in."""
        return inspect.cleandoc(cls.__doc__ or "").format(**cls.thresholds())

    @classmethod
    def level_text(cls) -> str:
        """The rule's level as the docs print it: ``level_note`` (thresholds filled in),
        else the level's name."""
        if cls.level_note is None:
            return cls.level.value
        return cls.level_note.format(**cls.thresholds())

    def finding(
        self,
        session: Session,
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
        """A finding of this rule about ``session``; ``events`` adds their seqs and
        (non-zero) lines."""
        event_list = list(events)
        all_seqs = sorted({*seqs, *(e.seq for e in event_list)})
        all_lines = sorted({*lines, *(e.line for e in event_list)} - {0})
        item_tuple = tuple(items)
        return Finding(
            rule_id=self.id,
            rule=self.name,
            level=level or self.level,
            message=message,
            path=session.path,
            compaction=compaction,
            seqs=tuple(all_seqs),
            lines=tuple(all_lines),
            items=item_tuple,
            confidence=confidence,
            fingerprint=fingerprint_of(
                session_identity(session.path, session.session_id),
                self.id,
                compaction,
                item_tuple,
            ),
            items_detail=tuple(items_detail),
            restored=tuple(restored),
        )


class SessionRule(Rule):
    """A rule about a whole session: the log's health, its prunes, its count of failures."""

    def check_session(self, session: Session) -> Iterator[Finding]:
        """Yield this rule's findings about ``session``."""
        raise NotImplementedError


class CompactionRule(Rule):
    """A rule about one compaction at a time: the engine calls it once per compaction, in
    order, with the compaction's view (its summary, the events it replaced, its judged
    constraints)."""

    def check_compaction(self, view: CompactionView) -> Iterator[Finding]:
        """Yield this rule's findings about ``view.compaction``."""
        raise NotImplementedError

    def at_boundary(self, view: CompactionView, message: str) -> Finding:
        """A finding about the compaction as a whole, located at its boundary record."""
        c = view.compaction
        return self.finding(
            view.session, message, compaction=c.index, seqs=[c.start_seq], lines=[c.line]
        )
