"""What the summary repair would change in real model-written summaries, and what it costs.

Every summary a harness's model wrote in the real logs (Claude Code's summaries are
Claude's) is given to :func:`ctxkeep.compactor.repair.repair_summary` as if a
``summarizer=`` had written it, for the messages it replaced: the user's messages of the
replaced history are the request's sources (where the lost instructions come from), and
the auditor's own sources for that compaction (:meth:`CompactionView.source_index`: the
replaced history, tool output included, the previous summary, what stayed beside it) are
the conversation the invented items are looked up in. The summary's cap is its own size
(the repair must then fit what it adds in the same bytes) and 4 times it.

For each log it prints the compactions repaired, the instructions appended, the items
removed, against what the audit reports for the same compactions (CK003's lost
instructions, CK002's items: high confidence, and all), and the repair's time beside the
audit's judgement of the same compaction (in the same run). The audit lowers an item's
confidence when the log hides something (a hook's output, a call's result); the repair,
given every message, knows of nothing hidden, so it may remove an item the audit only
doubts. CK003 also judges instructions inherited from the previous summary; the repair
reads only the replaced messages, as in ctxkeep's own compactions, where the previous
summary is a system message and always kept.

    .venv/bin/python benchmarks/summary_repair.py /tmp/real/*.jsonl
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _common import machine
from ctxkeep.compactor.facts import FactSource
from ctxkeep.compactor.repair import repair_summary
from ctxkeep.compactor.summary import SummaryRequest
from ctxkeep.compactor.text import utf8_size
from ctxkeep.log.model import CompactionStatus, EventKind
from ctxkeep.log.reader import read_session
from ctxkeep.rules.context import RuleContext
from ctxkeep.rules.summary_hallucination import invented_items


def _row(path: Path, factor: int) -> dict[str, float] | None:
    session = read_session(path)
    ctx = RuleContext(session)
    row = dict.fromkeys(
        ("compactions", "appended", "lost", "removed", "high", "all", "cut", "repair_s", "audit_s"),
        0.0,
    )
    for compaction in session.compactions:
        if compaction.status is not CompactionStatus.SUMMARISED:
            continue
        view = ctx.view(compaction)
        summary = view.summary
        if summary is None or not view.has_history or view.history_before_file:
            continue
        started = time.perf_counter()
        lost = [j for j in view.constraints if not j.kept]
        items = invented_items(view)
        high = [i for i in items if i.confidence.value == "high"]
        audited = time.perf_counter()
        users = [
            FactSource(i, "user", e.text, 0.0)
            for i, e in enumerate(view.shadowed)
            if e.kind is EventKind.MESSAGE and e.role == "user" and e.text.strip()
        ]
        cap = factor * utf8_size(summary)
        request = SummaryRequest(tuple(users), len(view.shadowed), 0, len(view.shadowed), cap, None)
        repaired = repair_summary(summary, request, view.source_index())
        done = time.perf_counter()
        row["compactions"] += 1
        row["appended"] += len(repaired.appended)
        row["cut"] += repaired.instructions_cut
        row["removed"] += len(repaired.removed)
        row["lost"] += len(lost)
        row["high"] += len(high)
        row["all"] += len(items)
        row["audit_s"] += audited - started
        row["repair_s"] += done - audited
    return row if row["compactions"] else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--factor", type=int, nargs="+", default=[1, 4])
    args = parser.parse_args()
    print(machine())
    for factor in args.factor:
        print(f"\ncap = {factor} x the summary's own size")
        print("| log | compactions | appended | CK003 lost | removed | CK002 high | CK002 all "
              "| cut | repair s | audit view s |")  # fmt: skip
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for path in args.logs:
            row = _row(path, factor)
            if row is None:
                continue
            print(
                f"| {path.name} | {row['compactions']:.0f} | {row['appended']:.0f} | "
                f"{row['lost']:.0f} | {row['removed']:.0f} | {row['high']:.0f} | "
                f"{row['all']:.0f} | {row['cut']:.0f} | {row['repair_s']:.3f} | "
                f"{row['audit_s']:.3f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
