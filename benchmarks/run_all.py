"""Regenerate benchmarks/RESULTS.md: the quality, fact-survival and speed benchmarks.

    make bench                       # installs the bench extras into .venv, then runs this
    .venv/bin/python benchmarks/run_all.py [--corpus small|large|xl] [--max-mb 1000]
    .venv/bin/python benchmarks/run_all.py --part facts   # only the fact-survival section

Writes, next to this file: RESULTS.md (the tables, the targets, machine, versions and
date), quality.json (every run), quality.png (survival against budget), facts.json (every
fact-survival run, bytes out and target included), facts.png and speed.json. With
``--part facts`` only the fact-survival section of RESULTS.md (between its markers) and
its two files are rewritten. The LLM row runs when ``CTXKEEP_BENCH_LLM_URL`` names an
OpenAI-compatible server (``CTXKEEP_BENCH_LLM_MODEL``, ``CTXKEEP_BENCH_LLM_KEY``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import re
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine  # benchmarks/ is not a package: found through sys.path
from ctxkeep.bench.chart import ChartUnavailable, write_chart, write_fact_chart
from ctxkeep.bench.compactors import available_compactors
from ctxkeep.bench.llm_summary import LLMEndpoint
from ctxkeep.bench.quality import QualityReport, QualityRow, run_quality, steps
from ctxkeep.bench.quality import to_json as quality_json
from ctxkeep.bench.render import fact_table, fact_zone_table, quality_table, speed_tables
from ctxkeep.bench.speed import SpeedReport, run_speed
from ctxkeep.bench.speed import to_json as speed_json
from ctxkeep.bench.survival import FactReport, FactRow, run_facts
from ctxkeep.bench.survival import to_json as facts_json

HERE = Path(__file__).resolve().parent
_PACKAGES = ("ctxkeep", "msgspec", "tiktoken", "langchain-core", "compact-audit", "matplotlib")


def _versions() -> str:
    found = []
    for name in _PACKAGES:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} not installed")
    return ", ".join(found)


def _row(report: QualityReport, compactor: str, budget: float) -> QualityRow | None:
    return next((r for r in report.rows if r.compactor == compactor and r.budget == budget), None)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("met" if ok else "**not met**")


def targets(quality: QualityReport, speed: SpeedReport) -> str:
    """The issue's targets against the measured figures, one line each."""
    lines = []
    ours = [
        r
        for r in quality.rows
        if r.budget == 0.25
        and r.compactor.startswith("ctxkeep/")
        and r.constraint_survival is not None
    ]
    trunc = _row(quality, "recency-truncation", 0.25)
    trunc_kept = trunc.constraint_survival if trunc else None
    for r in ours:
        ok = r.constraint_survival is not None and r.constraint_survival >= 0.95
        # Keeping everything keeps every constraint: say whether the budget was kept too.
        lines.append(
            f"- {r.compactor} keeps >= 95% of constraints at a 25% budget: "
            f"{_pct(r.constraint_survival)} — {_verdict(ok)} (tokens saved "
            f"{_pct(r.tokens_saved)}, over budget in {r.over_budget}/{r.runs} runs)"
        )
    lines.append(
        f"- recency truncation keeps well under half at 25%: {_pct(trunc_kept)} — "
        f"{_verdict(None if trunc_kept is None else trunc_kept < 0.5)}"
    )
    tp = speed.throughput
    if tp is not None:
        lines.append(
            f"- audit >= 50 MB/s per core (one process, {tp.log_bytes / 1e6:.0f} MB log): "
            f"{tp.audit_mb_s:.1f} MB/s — {_verdict(tp.audit_mb_s >= 50)}"
            + (
                f" (growth curve below: {min(g.audit_mb_s for g in speed.growth):.1f} to "
                f"{max(g.audit_mb_s for g in speed.growth):.1f} MB/s)"
                if speed.growth
                else ""
            )
        )
        x = tp.speedup_vs_compact_audit
        lines.append(
            "- audit >= 10x compact-audit: "
            + (
                "compact-audit not installed — n/a"
                if x is None
                else f"{x:.1f}x — {_verdict(x >= 10)}"
            )
        )
    if len(speed.growth) >= 2:
        small, big = speed.growth[0], speed.growth[-1]
        growth = big.audit_max_rss_kb / small.audit_max_rss_kb
        size_growth = big.log_bytes / small.log_bytes
        lines.append(
            "- audit memory flat in log size: peak RSS "
            f"{small.audit_max_rss_kb / 1024:,.0f} MB at {small.target_mb} MB -> "
            f"{big.audit_max_rss_kb / 1024:,.0f} MB at {big.target_mb:,} MB "
            f"({growth:.1f}x for {size_growth:.0f}x the bytes) — {_verdict(growth < 1.5)}"
        )
    return "\n".join(lines)


def findings(quality: QualityReport) -> str:
    """What the runs show beyond the table, computed from them (one line each)."""
    lines = []
    for name in dict.fromkeys(r.compactor for r in quality.runs):
        runs = [r for r in quality.runs if r.compactor == name]
        invented = [i for r in runs for i in r.invented]
        if invented:
            examples = ", ".join(f"`{i}`" for i in sorted(set(invented))[:6])
            labels = sum(1 for i in invented if re.fullmatch(r"#\d+", i))
            lines.append(
                f"- {name}: {len(invented)} invented items (CK002) over {len(runs)} runs, "
                f"e.g. {examples}" + (f"; {labels} of them `#N` message labels" if labels else "")
            )
        broken = Counter(p for r in runs for p in r.sequence_problems)
        if broken:
            kinds = ", ".join(f"{k} x{n}" for k, n in sorted(broken.items()))
            lines.append(f"- {name}: invalid sequences: {kinds}")
        over = [r for r in runs if r.error is None and r.tokens_after > r.budget_tokens]
        if over:
            worst = max(over, key=lambda r: r.tokens_after / r.budget_tokens)
            lines.append(
                f"- {name}: over budget in {len(over)} of {len(runs)} runs, at worst "
                f"{worst.tokens_after:,} tokens for a budget of {worst.budget_tokens:,} "
                f"({100 * (worst.tokens_after / worst.budget_tokens - 1):.1f}% over)"
            )
        errors = Counter(r.error for r in runs if r.error)
        for error, n in sorted(errors.items()):
            lines.append(f"- {name}: {n} runs failed: {error}")
    return "\n".join(lines) or "- nothing beyond the table"


FACTS_BEGIN = "<!-- facts: begin (benchmarks/run_all.py --part facts rewrites this section) -->"
FACTS_END = "<!-- facts: end -->"


def _fact_row(report: FactReport, method: str, budget: float) -> FactRow | None:
    return next((r for r in report.rows if r.method == method and r.budget == budget), None)


def fact_targets(report: FactReport) -> str:
    """Issue 12's targets for the fact-survival benchmark, one line each."""
    hard = _fact_row(report, "ctxkeep/hard", 0.01)
    trunc = _fact_row(report, "recency-truncation", 0.01)
    lines = []
    if hard is not None and hard.fact_survival is not None:
        ratio = (
            None
            if trunc is None or not trunc.fact_survival
            else hard.fact_survival / trunc.fact_survival
        )
        shown = "∞ (truncation keeps none)" if ratio is None else f"{ratio:.1f}x"
        lines.append(
            f"- ctxkeep/hard keeps >= 3x the facts recency truncation keeps at 1% of the zone: "
            f"{_pct(hard.fact_survival)} vs {_pct(trunc.fact_survival if trunc else None)} = "
            f"{shown} — {_verdict(ratio is None or ratio >= 3)}"
        )
        lines.append(
            f"- ctxkeep/hard keeps >= 25% of the facts at 1% of the zone: "
            f"{_pct(hard.fact_survival)} — {_verdict(hard.fact_survival >= 0.25)}"
        )
    runs = [r for r in report.runs if r.method == "ctxkeep/hard" and r.error is None]
    held = sum(r.bytes_out <= r.target_bytes or r.fits is False for r in runs)
    lines.append(
        f"- every ctxkeep/hard run within its target (or fits=False): {held}/{len(runs)} — "
        f"{_verdict(held == len(runs))}"
    )
    return "\n".join(lines)


def facts_section(report: FactReport, chart: str) -> str:
    """The fact-survival section of RESULTS.md, between its markers."""
    llm = (
        f"a summary by {report.llm}"
        if report.llm
        else "did not run: no `CTXKEEP_BENCH_LLM_URL` was configured"
    )
    zones = ", ".join(f"{100 * z:g}%" for z in report.zones)
    budgets = ", ".join(f"{100 * b:g}%" for b in report.budgets)
    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = f"""## Facts that survive a tight budget (`ctxkeep bench facts --corpus {report.corpus}`)

- Run on {date} (`--part facts` rewrites this section alone: its date may differ from
  the file's). Input: generated chats only.
- Chats: {", ".join(report.chats)} (generated by `ctxkeep.bench.fact_corpus`);
  {report.facts_planted} facts and {report.instructions_planted} standing instructions planted
  (ctxkeep's extractor finds {report.instructions_found} of the instructions).
- Zones: the oldest {zones} of each chat's bytes, replaced by each method within a budget
  of {budgets} of the zone's bytes.
- Kept: a fact whose keywords are in the replacement; a changed fact only by its newer
  value ("stale only": the older value kept without the newer).
- ctxkeep: `compact()` with its defaults on the zone followed by the next user message
  (the task), the target being the budget plus that message; the replacement is the rest.
- LLM: {llm}.
- Bytes: every run's bytes out and target are in `facts.json`; "worst out / target" is the
  largest ratio of the row; "fits=False" counts hard runs whose mandatory part alone was
  over.

Targets (issue 12):

{fact_targets(report)}

{fact_table(report, markdown=True)}

Facts kept at 1% of the zone, by zone:

{fact_zone_table(report, 0.01, markdown=True)}

{f"![facts kept against budget]({chart})" if chart else "(no chart: matplotlib not installed)"}
"""
    return f"{FACTS_BEGIN}\n{body}{FACTS_END}"


def run_fact_section(out: Path, corpus: str) -> str:
    """Run the fact-survival benchmark, write facts.json and facts.png, return the section."""
    total = 0

    def tick() -> None:
        nonlocal total
        total += 1
        if total % 50 == 0:
            print(f"\rfacts {total}", end="", file=sys.stderr, flush=True)

    report = run_facts(corpus, llm=LLMEndpoint.from_env(), on_step=tick)
    print(file=sys.stderr)
    (out / "facts.json").write_bytes(facts_json(report))
    chart = "facts.png"
    try:
        write_fact_chart(report, out / chart)
    except ChartUnavailable as exc:
        chart = ""
        print(exc, file=sys.stderr)
    return facts_section(report, chart)


def replace_facts_section(doc: str, section: str) -> str:
    """``doc`` with its fact-survival section replaced (inserted before the speed section
    when it has none)."""
    if FACTS_BEGIN in doc and FACTS_END in doc:
        head, rest = doc.split(FACTS_BEGIN, 1)
        _old, tail = rest.split(FACTS_END, 1)
        return head + section + tail
    at = doc.find("\n## Speed")
    if at == -1:
        return doc.rstrip("\n") + "\n\n" + section + "\n"
    return doc[: at + 1] + section + "\n\n" + doc[at + 1 :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("small", "large", "xl"), default="large")
    parser.add_argument("--max-mb", type=int, default=100)
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--part", choices=("all", "facts"), default="all")
    parser.add_argument("--facts-corpus", choices=("smoke", "full"), default="full")
    args = parser.parse_args(argv)
    out: Path = args.out
    started = time.perf_counter()
    if args.part == "facts":
        results = out / "RESULTS.md"
        doc = results.read_text(encoding="utf-8") if results.exists() else "# ctxkeep benchmarks\n"
        section = run_fact_section(out, args.facts_corpus)
        results.write_text(replace_facts_section(doc, section), encoding="utf-8")
        print(f"wrote the fact-survival section of {results}", file=sys.stderr)
        return 0

    compactors = available_compactors()
    total = steps(args.corpus, compactors=len(compactors))
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if done % 10 == 0 or done == total:
            print(f"\rquality {done}/{total}", end="", file=sys.stderr, flush=True)

    quality = run_quality(args.corpus, compactors=compactors, on_step=tick)
    print(file=sys.stderr)
    (out / "quality.json").write_bytes(quality_json(quality))
    chart = "quality.png"
    try:
        write_chart(quality, out / chart)
    except ChartUnavailable as exc:
        chart = ""
        print(exc, file=sys.stderr)

    facts = run_fact_section(out, args.facts_corpus)
    speed = run_speed(
        max_mb=args.max_mb, on_step=lambda name: print(f"speed: {name} done", file=sys.stderr)
    )
    (out / "speed.json").write_bytes(speed_json(speed))

    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    doc = f"""# ctxkeep benchmarks

Regenerated by `make bench` (`benchmarks/run_all.py --corpus {args.corpus} --max-mb {args.max_mb}`)
on {date}, in {time.perf_counter() - started:,.0f} s.

- Input: **generated** sessions only, from fixed seeds (quality: `ctxkeep.bench.corpus`;
  facts: `ctxkeep.bench.fact_corpus`; speed: Claude Code logs written by
  `ctxkeep.bench.logs`). The real logs are measured in [REAL-LOGS.md](REAL-LOGS.md).
- Machine: {machine()}, shared with other jobs: read the same-run ratios, take
  absolute times as context.
- Versions: {_versions()}.
- Corpus: `{quality.corpus}`, {len(quality.sessions)} sessions generated on the fly from
  fixed seeds by `ctxkeep.bench.corpus`: {", ".join(quality.sessions)}.
- Cross-check: ctxkeep's extractor finds {quality.extractor_found_constraints} of the
  {quality.planted_constraints} planted constraints and {quality.extractor_found_identifiers} of the
  {quality.planted_identifiers} planted identifiers.
  Tokens: {quality.token_method}.

## Targets

{targets(quality, speed)}

## Quality: what survives compaction (`ctxkeep bench quality --corpus {args.corpus}`)

Budget = share of each session's tokens. "constraints kept" judges the planted
constraints with ctxkeep's `constraint_survives` against the whole compacted context;
"auditor" is the auditor's own count (CK003) with the compacted context audited as the
summary of a compaction that replaced the session; "invented" counts CK002 items.
Recency truncation keeps the newest messages that fit and is **not** tool-pair safe (as
naive harness truncation); LangChain is `trim_messages(strategy="last",
include_system=True, start_on="human")`.

{quality_table(quality, markdown=True)}

{f"![survival against budget]({chart})" if chart else "(no chart: matplotlib not installed)"}

What the runs show beyond the table:

{findings(quality)}

{facts}

## Speed (`ctxkeep bench speed --max-mb {args.max_mb}`)

Generated Claude Code logs of growing size (`ctxkeep.bench.logs`): each a run of
sessions, each session followed by a compaction whose summary the auditor judges. The
compaction rows compact generated agent sessions (`ctxkeep.bench.corpus`, their tokens in
the table); 10,000 messages cut from the real logs are in [REAL-LOGS.md](REAL-LOGS.md).

{speed_tables(speed, markdown=True)}
"""
    (out / "RESULTS.md").write_text(doc, encoding="utf-8")
    print(f"wrote {out / 'RESULTS.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
