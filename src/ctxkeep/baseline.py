"""Baseline files: the fingerprints of accepted findings, so CI reports only new ones.

A baseline is compared as a set difference of fingerprints (as detect-secrets does):
fingerprints leave out line numbers, so a finding keeps matching while the log around it
moves.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from ctxkeep._version import __version__
from ctxkeep.findings import Finding

__all__ = ["BaselineError", "load_baseline", "write_baseline"]


class BaselineError(ValueError):
    """A baseline file that cannot be used; the message names the file and the reason."""


def load_baseline(path: Path) -> frozenset[str]:
    """The fingerprints in a baseline file written by :func:`write_baseline`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"{path}: not a JSON baseline: {exc}") from exc
    prints = data.get("fingerprints") if isinstance(data, dict) else None
    if not isinstance(prints, list) or not all(isinstance(p, str) for p in prints):
        raise BaselineError(f"{path}: expected an object with a 'fingerprints' list of strings")
    return frozenset(prints)


def write_baseline(path: Path, findings: Iterable[Finding]) -> int:
    """Write the fingerprints of ``findings``; returns how many distinct ones."""
    prints = sorted({f.fingerprint for f in findings})
    data = {"tool": "ctxkeep", "version": __version__, "fingerprints": prints}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return len(prints)
