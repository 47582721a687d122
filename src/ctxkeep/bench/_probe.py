"""One measurement in a fresh process, so its peak memory is its own.

``python -m ctxkeep.bench._probe MODE LOG OUT`` runs one of the modes below on the log and
writes ``{"seconds", "max_rss_kb", ...}`` as JSON to OUT (the library prints nothing, so
the answer goes to a file). ``max_rss_kb`` is the process's peak resident memory,
interpreter and imports included: ``VmHWM`` from ``/proc/self/status`` where Linux has it,
else ``resource.getrusage(RUSAGE_SELF).ru_maxrss``. Not ``ru_maxrss`` first: Linux carries
it over fork and exec, so a probe started by a parent that held 1.3 GB (the embedding model
of the quality run) reported 1.3 GB for an idle interpreter. ``VmHWM`` belongs to the
address space, which exec replaces.

Modes: ``idle`` (imports only: the floor), ``decode`` (msgspec decoding of every line: the
physical limit of reading the log), ``audit`` (``ctxkeep.audit`` on the file).
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path
from typing import Any

import msgspec


def _decode(path: Path) -> dict[str, Any]:
    decode = msgspec.json.Decoder().decode
    records = 0
    with path.open("rb") as fh:
        for line in fh:
            if line.strip():
                decode(line)
                records += 1
    return {"records": records}


def _audit(path: Path) -> dict[str, Any]:
    from ctxkeep.engine import audit

    result = audit(path)
    session = result.sessions[0] if result.sessions else None
    return {
        "events": session.events if session else 0,
        "compactions": session.compactions.started if session else 0,
        "findings": len(result.findings),
        "constraints_total": session.constraints_total if session else 0,
        "problems": len(result.problems),
    }


def peak_rss_kb() -> int:
    """This process's peak resident memory in KiB since its last exec (see the docstring)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(argv: list[str]) -> int:
    mode, log, out = argv
    path = Path(log)
    # Imports happen before the clock starts: the curve is about the log, not start-up
    # (an idle interpreter's cost is the ``idle`` mode's own figure).
    import ctxkeep.engine  # noqa: F401

    start = time.perf_counter()
    if mode == "idle":
        facts: dict[str, Any] = {}
    elif mode == "decode":
        facts = _decode(path)
    elif mode == "audit":
        facts = _audit(path)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    facts["seconds"] = time.perf_counter() - start
    facts["max_rss_kb"] = peak_rss_kb()
    facts["bytes"] = path.stat().st_size if path.is_file() else 0
    Path(out).write_bytes(msgspec.json.encode(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
