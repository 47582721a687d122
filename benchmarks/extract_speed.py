"""How fast the extractors run, against one ``re.findall(r"\\w+")`` pass in the same run.

Text: the messages of generated English and Chinese agent sessions
(:mod:`ctxkeep.bench.corpus`: user prompts with constraints, tool output with paths,
versions, ports and tracebacks, chatter), repeated up to ``--size-mb``. Timed, each over
the same messages one by one, as the auditor calls them:

- baseline: ``re.findall(r"\\w+", text)``;
- ``extract_constraints`` over every message (the worst case) and over user messages only
  (what the auditor does: constraints come from real user text);
- ``extract_identifiers`` and ``find_references`` over every message, and identifiers over
  harness summaries (the auditor runs them on summaries only, a small part of a log);
- ``constraint_survives`` of every constraint against a summary;
- ``SourceIndex``: build over every message, then ``contains`` for the identifiers of a
  summary (each lookup searches the whole source text).

    .venv/bin/python benchmarks/extract_speed.py              # 20 MB
    .venv/bin/python benchmarks/extract_speed.py --size-mb 100
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from _common import best_of, machine, mb_per_s
from ctxkeep.bench.corpus import SessionSpec, generate_session, harness_summary
from ctxkeep.extract import (
    SourceIndex,
    constraint_survives,
    extract_constraints,
    extract_identifiers,
    find_references,
)

_WORD = re.compile(r"\w+")


def _corpus(size_mb: float) -> tuple[list[str], list[str], str]:
    """(every message text, user message texts, one harness summary) of about size_mb."""
    base: list[tuple[str, str]] = []
    summary = ""
    for seed, language in ((1, "en"), (2, "zh"), (3, "en"), (4, "zh")):
        session = generate_session(SessionSpec(seed, language, 1000))  # type: ignore[arg-type]
        summary += harness_summary(session) + "\n"
        for message in session.messages:
            content = message.get("content")
            if isinstance(content, str) and content:
                base.append((str(message.get("role")), content))
    texts: list[str] = []
    users: list[str] = []
    target = size_mb * 1e6
    size = 0
    while size < target:
        for role, content in base:
            texts.append(content)
            if role == "user":
                users.append(content)
            size += len(content.encode())
    return texts, users, summary


def _size(texts: list[str]) -> int:
    return sum(len(t.encode()) for t in texts)


def _over(func: Callable[[str], object], texts: list[str]) -> Callable[[], int]:
    def run() -> int:
        count = 0
        for text in texts:
            count += 1 if func(text) else 0
        return count

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size-mb", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    texts, users, summary = _corpus(args.size_mb)
    total = _size(texts)
    user_bytes = _size(users)
    print(machine())
    print(
        f"corpus: {total / 1e6:.1f} MB in {len(texts):,} messages "
        f"(user text {user_bytes / 1e6:.2f} MB, {100 * user_bytes / total:.1f}%)"
    )

    base_s, _ = best_of(args.runs, _over(_WORD.findall, texts))
    baseline = mb_per_s(total, base_s)
    label = 'baseline re.findall(r"\\w+")'
    print(f"{label:<44} {baseline:8.1f} MB/s  1.00x")

    def report(label: str, seconds: float, size: int) -> None:
        speed = mb_per_s(size, seconds)
        print(f"{label:<44} {speed:8.1f} MB/s  {speed / baseline:.2f}x")

    seconds, _ = best_of(args.runs, _over(extract_constraints, texts))
    report("extract_constraints, every message", seconds, total)
    seconds, _ = best_of(args.runs, _over(extract_constraints, users))
    report("extract_constraints, user messages", seconds, user_bytes)
    # the auditor's cost per byte of log: user text only, spread over the whole log
    report("  ... as MB of the whole log per second", seconds, total)
    seconds, _ = best_of(args.runs, _over(extract_identifiers, texts))
    report("extract_identifiers, every message", seconds, total)
    summaries = [summary] * max(1, int(args.size_mb * 1e6 / 20 / max(1, len(summary))))
    seconds, _ = best_of(args.runs, _over(extract_identifiers, summaries))
    report("extract_identifiers, harness summaries", seconds, _size(summaries))
    seconds, _ = best_of(args.runs, _over(find_references, texts))
    report("find_references, every message", seconds, total)

    constraints = [c for text in users for c in extract_constraints(text)]
    survival_s, _ = best_of(
        args.runs, lambda: [constraint_survives(c, summary) for c in constraints]
    )
    print(
        f"{'constraint_survives, per constraint':<44} "
        f"{survival_s / len(constraints) * 1e6:8.1f} us "
        f"({len(constraints)} constraints against one {len(summary):,}-character summary)"
    )

    build_s, index = best_of(args.runs, lambda: SourceIndex(texts))
    report("SourceIndex build", build_s, total)
    identifiers = extract_identifiers(summary)
    lookup_s, found = best_of(args.runs, lambda: sum(index.contains(i) for i in identifiers))
    per_lookup = lookup_s / max(1, len(identifiers))
    print(
        f"{'SourceIndex.contains, per identifier':<44} {per_lookup * 1e3:8.2f} ms "
        f"({len(identifiers)} identifiers of a summary, {found} found; "
        f"{mb_per_s(total, per_lookup):.0f} MB/s of sources per lookup)"
    )
    # invented identifiers are the expensive case: nothing stops the scan early
    absent = extract_identifiers(
        "src/nowhere/deep/made_up.py PR 99999 v9.9.99 https://nowhere.example/x "
        "Parser.fabricated() $NOPE_VAR"
    )
    absent_s, _ = best_of(args.runs, lambda: sum(index.contains(i) for i in absent))
    print(
        f"{'SourceIndex.contains, per absent identifier':<44} "
        f"{absent_s / len(absent) * 1e3:8.2f} ms ({len(absent)} invented identifiers; "
        f"{mb_per_s(total, absent_s / len(absent)):.0f} MB/s of sources per lookup)"
    )


if __name__ == "__main__":
    main()
