"""Start-up: what ``ctxkeep --help`` and a small audit cost, against ``import click``.

    .venv/bin/python benchmarks/startup.py [--runs 20]

Each command runs as a fresh process (interpreter start-up included), in interleaved
rounds so that a load swing on this shared machine hits every command alike; the figure
is each command's best time and its ratio to the best time of the baseline,
``python -c "import click"`` (the least a click CLI can cost). Target (issue 15): ``ctxkeep
--help`` at most 2x the baseline.

Also timed, as context: ``ctxkeep audit`` of the smallest example that prunes
(examples/claude-code/tinyparse-microcompact.jsonl, 49 KB), whose rules decide by token
bounds without loading the o200k tokenizer, and ``ctxkeep show`` of the same file.
Input: the bundled example, no generated data.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine  # benchmarks/ is not a package

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "claude-code" / "tinyparse-microcompact.jsonl"
TARGET = 2.0


def _ctxkeep(*args: str) -> list[str]:
    return [sys.executable, "-m", "ctxkeep", *args]


COMMANDS: dict[str, list[str]] = {
    'python -c "import click"': [sys.executable, "-c", "import click"],
    "ctxkeep --help": _ctxkeep("--help"),
    "ctxkeep show (49 KB example)": _ctxkeep("show", str(EXAMPLE)),
    "ctxkeep audit (49 KB example)": _ctxkeep("audit", "--format", "json", str(EXAMPLE)),
}
BASELINE = 'python -c "import click"'


def _time(argv: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # audit exits 1 on findings
        raise RuntimeError(f"{argv} exited {proc.returncode}: {proc.stderr.decode()}")
    return elapsed


def measure(runs: int) -> dict[str, float]:
    """Best time of each command over ``runs`` interleaved rounds."""
    best = dict.fromkeys(COMMANDS, float("inf"))
    for _ in range(runs):
        for name, argv in COMMANDS.items():
            best[name] = min(best[name], _time(argv))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(f"{machine()}; best of {args.runs} interleaved rounds, each a fresh process")
    best = measure(args.runs)
    base = best[BASELINE]
    for name, seconds in best.items():
        print(f"  {name:32s} {seconds * 1000:7.1f} ms  ratio {seconds / base:5.2f}")
    ratio = best["ctxkeep --help"] / base
    verdict = "meets" if ratio <= TARGET else "MISSES"
    print(f"ctxkeep --help costs {ratio:.2f}x import click: {verdict} the target of {TARGET:g}x")


if __name__ == "__main__":
    main()
