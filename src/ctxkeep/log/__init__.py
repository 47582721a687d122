"""The session model and the readers of real harness logs (docs/design.md, "The session
model"; docs/formats.md for each format).

The names below are imported on first use (``ctxkeep._lazy``): ``--log-format``'s
choices (``ctxkeep.log.adapters.format_names``) cost no adapter and no JSON decoder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxkeep._lazy import attach

if TYPE_CHECKING:
    from ctxkeep.log.adapters import ReadOptions as ReadOptions
    from ctxkeep.log.adapters import format_names as format_names
    from ctxkeep.log.model import Compaction as Compaction
    from ctxkeep.log.model import CompactionStatus as CompactionStatus
    from ctxkeep.log.model import Event as Event
    from ctxkeep.log.model import EventKind as EventKind
    from ctxkeep.log.model import ParseProblem as ParseProblem
    from ctxkeep.log.model import Prune as Prune
    from ctxkeep.log.model import Session as Session
    from ctxkeep.log.reader import discover as discover
    from ctxkeep.log.reader import read_session as read_session
    from ctxkeep.log.reader import sniff as sniff

__getattr__, __dir__ = attach(__name__, __file__)
