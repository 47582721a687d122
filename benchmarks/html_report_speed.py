"""The HTML report's cost on a long session, against auditing it in the same run.

    .venv/bin/python benchmarks/html_report_speed.py [--events 20000] [--runs 3]

Generates a Claude Code log of at least ``--events`` events (ctxkeep.bench.logs), then
times auditing it (read + every rule), auditing it with each compaction taken apart
(``detail=True``, what ``--format html`` asks for), rendering the audit as JSON, and
rendering the detailed audit as HTML. Prints the times, the HTML report (detailed audit +
render) against the plain audit, and the page's size against the log's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import best_of, machine  # benchmarks/ is not a package
from ctxkeep.bench.logs import write_log
from ctxkeep.engine import audit
from ctxkeep.report import render


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "long.jsonl"
        size, _ = write_log(log, args.events * 600)
        audit_s, result = best_of(args.runs, lambda: audit(log))
        detail_s, detailed = best_of(args.runs, lambda: audit(log, detail=True))
        (session,) = result.sessions
        json_s, json_page = best_of(args.runs, lambda: render("json", result))
        html_s, html_page = best_of(args.runs, lambda: render("html", detailed))
    print(machine())
    print(
        f"log: {size / 1e6:.1f} MB, {session.events:,} events, "
        f"{session.compactions.started} compactions"
    )
    print(f"audit:       {audit_s * 1000:8.1f} ms")
    print(f"with detail: {detail_s * 1000:8.1f} ms")
    print(f"json report: {json_s * 1000:8.1f} ms  {len(json_page.encode()) / 1e3:8.1f} kB")
    print(f"html report: {html_s * 1000:8.1f} ms  {len(html_page.encode()) / 1e6:8.2f} MB")
    print(
        f"html report (detailed audit + render) / audit time: "
        f"{(detail_s + html_s) / audit_s:.2f}; page / log size: "
        f"{len(html_page.encode()) / size:.2f}"
    )


if __name__ == "__main__":
    main()
