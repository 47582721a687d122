"""Baseline files: the fingerprints of accepted findings, so CI reports only new ones.

A baseline is compared as a set difference of fingerprints (as detect-secrets does):
fingerprints leave out line numbers and the path as typed, so a finding keeps matching
while the log around it moves, and whether it is audited as ``logs/``, ``/abs/logs`` or
from inside ``logs/``. The file records the fingerprint scheme
(:data:`~ctxkeep.base.findings.FINGERPRINT_SCHEME`); a baseline of an older scheme is read but
matches nothing now, and :attr:`Baseline.stale` says so (the CLI warns).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ctxkeep._version import __version__
from ctxkeep.base.findings import FINGERPRINT_SCHEME, Finding

__all__ = ["Baseline", "BaselineError", "load_baseline", "read_baseline", "write_baseline"]


class BaselineError(ValueError):
    """A baseline file that cannot be used; the message names the file and the reason."""


@dataclass(frozen=True, slots=True)
class Baseline:
    """The fingerprints of a baseline file and the scheme they were made with."""

    fingerprints: frozenset[str]
    scheme: int

    @property
    def stale(self) -> str | None:
        """Why these fingerprints cannot match today's findings, or None."""
        if self.scheme == FINGERPRINT_SCHEME or not self.fingerprints:
            return None
        return (
            f"written by an older ctxkeep (fingerprint scheme {self.scheme}, which held the "
            f"log's path as typed); its {len(self.fingerprints)} fingerprint(s) match no "
            "finding now: write it again with --write-baseline"
        )


def read_baseline(path: Path) -> Baseline:
    """The baseline file written by :func:`write_baseline` (any scheme)."""
    prints, scheme = _load(path)
    if not isinstance(scheme, int) or isinstance(scheme, bool):
        raise BaselineError(f"{path}: 'fingerprint_scheme' must be an integer")
    return Baseline(frozenset(prints), scheme)


def load_baseline(path: Path) -> frozenset[str]:
    """The fingerprints of a baseline file that can match today's findings (an older
    scheme's match nothing: see :attr:`Baseline.stale`)."""
    baseline = read_baseline(path)
    return baseline.fingerprints if baseline.stale is None else frozenset()


def _load(path: Path) -> tuple[list[str], object]:
    """The fingerprints of a baseline file and its scheme (1 when the file has none)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"{path}: not a JSON baseline: {exc}") from exc
    prints = data.get("fingerprints") if isinstance(data, dict) else None
    if not isinstance(prints, list) or not all(isinstance(p, str) for p in prints):
        raise BaselineError(f"{path}: expected an object with a 'fingerprints' list of strings")
    return prints, data.get("fingerprint_scheme", 1)


def write_baseline(path: Path, findings: Iterable[Finding]) -> int:
    """Write the fingerprints of ``findings``; returns how many distinct ones."""
    prints = sorted({f.fingerprint for f in findings})
    data = {
        "tool": "ctxkeep",
        "version": __version__,
        "fingerprint_scheme": FINGERPRINT_SCHEME,
        "fingerprints": prints,
    }
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return len(prints)
