"""Long fuzz runs (issue 14): hostile variants of every log format through every reader,
``audit`` with every report, and ``compact``, for N minutes.

    .venv/bin/python benchmarks/fuzz.py --minutes 60 [--seed 14] [--limit 2] [--save DIR]

Prints, per format, how many inputs ran; every uncaught exception (with its traceback);
every input over the per-input --limit (CPU seconds, timed twice) and every super-linear
growth found by the growth probe (a slice repeated 200 and 400 times: more than 3x the
time for 2x the bytes). Those inputs are saved under --save (default: a new temporary
folder, printed). Exits 1 when anything failed, was slow or grew super-linearly. The
harness itself is ``tests/reliability/fuzzing.py`` (the suite runs it briefly);
docs/reliability.md holds the figures of the last long run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.reliability.fuzzing import Outcome, fuzz


def _report(outcome: Outcome, folder: Path) -> str:
    total = sum(outcome.inputs.values())
    took, mutations, size = outcome.slowest
    lines = [
        f"inputs: {total:,} in {outcome.seconds / 60:.1f} min "
        f"({total / max(outcome.seconds, 1e-9):.1f}/s)",
        "per format: " + ", ".join(f"{fmt} {n:,}" for fmt, n in sorted(outcome.inputs.items())),
        f"uncaught exceptions: {len(outcome.failures)}",
        f"inputs over the limit: {len(outcome.slow)}",
        f"super-linear growth: {len(outcome.superlinear)}",
        f"slowest input: {took:.3f} s ({size:,} bytes, {mutations})",
        f"saved inputs: {folder / 'saved'}",
    ]
    for check, trace, saved in outcome.failures[:20]:
        lines.append(f"\nFAILED {check} on {saved}:\n{trace}")
    for seconds, mutations, saved in sorted(outcome.slow, reverse=True)[:20]:
        lines.append(f"SLOW {seconds:.2f} s {mutations}: {saved}")
    for small, large, saved in outcome.superlinear[:20]:
        lines.append(f"SUPER-LINEAR {small:.3f} s -> {large:.3f} s for 2x bytes: {saved}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--limit", type=float, default=2.0, help="seconds per input")
    parser.add_argument("--save", type=Path, default=None, help="folder for saved inputs")
    args = parser.parse_args()
    folder = args.save or Path(tempfile.mkdtemp(prefix="ctxkeep-fuzz-"))
    folder.mkdir(parents=True, exist_ok=True)
    last = time.monotonic()

    def progress(done: int, outcome: Outcome) -> None:
        nonlocal last
        if time.monotonic() - last >= 60:
            last = time.monotonic()
            print(
                f"... {done:,} inputs, {len(outcome.failures)} failures, "
                f"{len(outcome.slow)} slow, slowest {outcome.slowest[0]:.3f} s",
                file=sys.stderr,
                flush=True,
            )

    outcome = fuzz(
        folder, seed=args.seed, seconds=args.minutes * 60, limit=args.limit, on_progress=progress
    )
    print(_report(outcome, folder))
    return 1 if outcome.failures or outcome.slow or outcome.superlinear else 0


if __name__ == "__main__":
    sys.exit(main())
