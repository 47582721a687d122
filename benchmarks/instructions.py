"""Instructions an audit costs, for this checkout and an earlier revision (valgrind).

    .venv/bin/python benchmarks/instructions.py [--base REV] LOG [LOG ...]

Times on these shared two-core machines move by 10-30% from one run to the next, with
a neighbour's job on the other core; a speed change of 5% cannot be read from them,
even as a ratio of alternating runs. The number of instructions the interpreter runs
does not move: this counts them with valgrind's callgrind (a system package: ``apt
install valgrind``), for the whole of what a user waits for in ``ctxkeep audit`` except
the output (interpreter start-up, imports, reading each log, every rule), once for the
checkout's ``src/`` and once for ``--base`` (default: ``main``), exported with ``git
archive`` into a temporary folder. It prints both counts and their ratio.

Instructions are not seconds: a cache miss costs more than an instruction, C code runs
more instructions per second than the interpreter loop. Read the ratio beside a timed
benchmark (benchmarks/audit_speed.py), not instead of it. Each run takes about 50 times
as long as the audit itself (26k-event benchmark log: 3-4 minutes).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What is counted: imports, reading and auditing each log given on the command line.
_TASK = """
import sys
from ctxkeep.engine import audit_session
from ctxkeep.log import read_session
for path in sys.argv[1:]:
    audit_session(read_session(path))
"""
_COLLECTED = re.compile(r"Collected : (\d+)")


def count(src: Path, logs: list[str], folder: Path) -> int:
    """Instructions run by the task with ctxkeep imported from ``src``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(src)
    env["PYTHONHASHSEED"] = "0"  # set order, and with it the count, the same every run
    # compiled once beforehand: compiling the sources is not what is measured
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True, env=env)
    out = folder / f"callgrind.{src.parent.name}"
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         sys.executable, "-c", _TASK, *logs],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    found = _COLLECTED.search(proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("logs", nargs="+", help="session logs to audit")
    parser.add_argument("--base", default="main", help="the revision to compare with")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt install valgrind)")
    missing = [log for log in args.logs if not Path(log).is_file()]
    if missing:
        raise SystemExit(f"no such log: {', '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = folder / "base"
        base.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.base, "src"],
            capture_output=True, check=True,
        )  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        print(f"counting {args.base} ...", flush=True)
        before = count(base / "src", args.logs, folder)
        print(f"{args.base}: {before / 1e9:.3f} G instructions", flush=True)
        print("counting this checkout ...", flush=True)
        after = count(ROOT / "src", args.logs, folder)
        print(f"this checkout: {after / 1e9:.3f} G instructions")
        print(f"ratio: {after / before:.3f} (this checkout / {args.base})")


if __name__ == "__main__":
    main()
