"""The subcommands of ``ctxkeep bench`` (imported when one of them runs: their choices
need the benchmark's generator and compactor list)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ctxkeep.bench.compactors import COMPACTOR_NAMES
from ctxkeep.bench.corpus import CORPORA
from ctxkeep.bench.fact_corpus import CHAT_CORPORA
from ctxkeep.bench.survival import BUDGETS as FACT_BUDGETS
from ctxkeep.bench.survival import METHOD_NAMES
from ctxkeep.bench.survival import ZONES as FACT_ZONES
from ctxkeep.cli.bench import progress

__all__ = ["facts_command", "quality_command", "speed_command"]


@click.command("quality")
@click.option(
    "--corpus",
    "corpus_name",
    type=click.Choice(list(CORPORA)),
    default="small",
    show_default=True,
    help="small: 6 sessions of 50-400 messages; large: 10 sessions of 50-2,000 messages; "
    "xl: 30 sessions of 50-2,000 messages.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the full report, every run included, as JSON to this file.",
)
@click.option(
    "--chart",
    "chart_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write a PNG chart of survival against budget (needs the bench extra: matplotlib).",
)
@click.option(
    "--compactor",
    "only",
    multiple=True,
    type=click.Choice(COMPACTOR_NAMES),
    help="Run only this compactor (repeatable) [default: all].",
)
def quality_command(
    corpus_name: str, json_path: Path | None, chart_path: Path | None, only: tuple[str, ...]
) -> None:
    """Compare compactors at budgets of 50%, 25% and 10% of each session's tokens.

    Rows: recency truncation (newest messages that fit; not tool-pair safe, as harnesses
    truncate), LangChain trim_messages (if langchain-core is installed), and ctxkeep
    compact with the recency, lexical and embedding (if installed) scorers, with and
    without pinning. Metrics, by ctxkeep's own extractors and auditor: planted
    constraints kept, constraints the auditor finds kept, planted identifiers kept,
    invented identifiers, valid sequences (no orphan tool call or result), bytes and
    tokens saved, runs over budget.
    """
    from ctxkeep.bench.compactors import available_compactors
    from ctxkeep.bench.quality import run_quality, steps, to_json
    from ctxkeep.bench.render import quality_table

    compactors = tuple(c for c in available_compactors() if not only or c.name in only)
    with progress(steps(corpus_name, compactors=len(compactors)), "quality") as tick:
        report = run_quality(corpus_name, compactors=compactors, on_step=tick)
    click.echo(quality_table(report))
    click.echo(
        f"\ncorpus {report.corpus}: {len(report.sessions)} sessions; ctxkeep's extractor found "
        f"{report.extractor_found_constraints}/{report.planted_constraints} planted constraints "
        f"and {report.extractor_found_identifiers}/{report.planted_identifiers} planted "
        f"identifiers; tokens: {report.token_method}"
    )
    if json_path is not None:
        json_path.write_bytes(to_json(report))
        click.echo(f"wrote {json_path}", err=True)
    if chart_path is not None:
        from ctxkeep.bench.chart import ChartUnavailable, write_chart

        try:
            write_chart(report, chart_path)
        except ChartUnavailable as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"wrote {chart_path}", err=True)


@click.command("speed")
@click.option(
    "--max-mb",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Largest log of the growth curve (1, 10, 100, 1000 MB); 1000 adds the gigabyte point.",
)
@click.option(
    "--throughput-mb",
    type=click.FloatRange(min=0.5),
    default=20,
    show_default=True,
    help="Size of the log for the audit / decode / compact-audit comparison.",
)
@click.option(
    "--compaction-max",
    type=click.Choice(["1000", "10000", "100000"]),
    default="100000",
    show_default=True,
    help="Largest message list of the compaction timing (1k, 10k, 100k messages).",
)
@click.option(
    "--sweep-files",
    type=click.IntRange(min=2),
    default=8,
    show_default=True,
    help="Logs in the folder that sweep audits on 1 and 2 processes.",
)
@click.option(
    "--sweep-mb",
    type=click.FloatRange(min=0.1),
    default=4,
    show_default=True,
    help="Size of each of those logs.",
)
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Where the generated logs go (default: the system's temporary folder); removed after.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the report as JSON to this file.",
)
def speed_command(
    max_mb: int,
    throughput_mb: float,
    compaction_max: str,
    sweep_files: int,
    sweep_mb: float,
    workdir: Path | None,
    json_path: Path | None,
) -> None:
    """Audit and compaction speed, each as a ratio against a baseline of the same run.

    Audit throughput against plain JSON decoding of the same log and against
    compact-audit (if installed) on the same transcripts and summaries; audit time and
    peak memory (each size in its own process) at 1, 10, 100 and 1,000 MB up to
    --max-mb; sweep on 1 and 2 processes; compaction time at 1k / 10k / 100k messages
    against recency truncation.
    """
    from ctxkeep.bench.render import speed_tables
    from ctxkeep.bench.speed import run_speed, steps, to_json

    counts = tuple(n for n in (1_000, 10_000, 100_000) if n <= int(compaction_max))
    kwargs: dict[str, Any] = {
        "max_mb": max_mb,
        "throughput_mb": throughput_mb,
        "compaction_counts": counts,
        "sweep_files": sweep_files,
        "sweep_file_mb": sweep_mb,
        "workdir": workdir,
    }
    with progress(steps(max_mb), "speed") as tick:
        report = run_speed(on_step=tick, **kwargs)
    click.echo(speed_tables(report))
    if json_path is not None:
        json_path.write_bytes(to_json(report))
        click.echo(f"wrote {json_path}", err=True)


def _shares(text: str) -> tuple[float, ...]:
    """``"0.5,1,2"`` (percent) -> (0.005, 0.01, 0.02)."""
    try:
        values = tuple(float(part) / 100 for part in text.split(",") if part.strip())
    except ValueError:
        raise click.BadParameter(
            f"expected percentages separated by commas, got {text!r}"
        ) from None
    if not values or any(not 0 < v <= 1 for v in values):
        raise click.BadParameter(f"expected percentages in (0, 100], got {text!r}")
    return values


def _percent_list(values: tuple[float, ...]) -> str:
    return ",".join(f"{100 * v:g}" for v in values)


@click.command("facts")
@click.option(
    "--corpus",
    "corpus_name",
    type=click.Choice(list(CHAT_CORPORA)),
    default="smoke",
    show_default=True,
    help="smoke: two 50 KB chats (English, Chinese); full: 50, 200 and 800 KB in both.",
)
@click.option(
    "--zones",
    default=_percent_list(FACT_ZONES),
    show_default=True,
    help="Replaced zones: the oldest share of each chat's bytes, in percent.",
)
@click.option(
    "--budgets",
    default=_percent_list(FACT_BUDGETS),
    show_default=True,
    help="Budgets, in percent of the zone's bytes.",
)
@click.option(
    "--method",
    "only",
    multiple=True,
    type=click.Choice(METHOD_NAMES),
    help="Run only this method (repeatable) [default: all].",
)
@click.option(
    "--llm-url",
    envvar="CTXKEEP_BENCH_LLM_URL",
    default=None,
    help="An OpenAI-compatible server for the llm-summary row [env CTXKEEP_BENCH_LLM_URL; "
    "key from CTXKEEP_BENCH_LLM_KEY].",
)
@click.option(
    "--llm-model",
    envvar="CTXKEEP_BENCH_LLM_MODEL",
    default="default",
    show_default=True,
    help="The model the server is asked for [env CTXKEEP_BENCH_LLM_MODEL].",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the full report, every run with its bytes out and target, as JSON.",
)
@click.option(
    "--chart",
    "chart_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write a PNG chart of facts kept against budget (needs the bench extra).",
)
def facts_command(
    corpus_name: str,
    zones: str,
    budgets: str,
    only: tuple[str, ...],
    llm_url: str | None,
    llm_model: str,
    json_path: Path | None,
    chart_path: Path | None,
) -> None:
    """Which compaction keeps the facts of a long chat at a tight budget.

    Generated chats (50-800 KB, English and Chinese) have facts of the user's life
    planted in them — personal details, numbers, dates, names, preferences, facts that
    change (only the newer value counts) — and standing instructions. The oldest part
    of each chat (the zone) is replaced, within the budget, by: recency truncation (its
    last bytes), LangChain trim_messages (if langchain-core is installed), ctxkeep
    compact in soft and hard mode, and an LLM summary (with --llm-url). A fact is kept
    when its keywords are in the replacement. Every run's bytes out are checked against
    its target.
    """
    import os

    from ctxkeep.bench.llm_summary import LLMEndpoint
    from ctxkeep.bench.render import fact_table, fact_zone_table
    from ctxkeep.bench.survival import fact_methods, run_facts, steps, to_json

    zone_shares, budget_shares = _shares(zones), _shares(budgets)
    llm = None
    if llm_url:
        llm = LLMEndpoint(llm_url, llm_model, os.environ.get("CTXKEEP_BENCH_LLM_KEY") or None)
    methods = tuple(m for m in fact_methods(llm) if not only or m.name in only)
    specs = CHAT_CORPORA[corpus_name]
    length = steps(specs, zone_shares, budget_shares, len(methods))
    with progress(length, "facts") as tick:
        report = run_facts(
            corpus_name,
            zones=zone_shares,
            budgets=budget_shares,
            methods=methods,
            llm=llm,
            on_step=tick,
        )
    click.echo(fact_table(report))
    middle = budget_shares[len(budget_shares) // 2]
    click.echo(f"\nfacts kept at {100 * middle:g}% of the zone, by zone:")
    click.echo(fact_zone_table(report, middle))
    click.echo(
        f"\ncorpus {report.corpus}: {len(report.chats)} chats, {report.facts_planted} facts "
        f"and {report.instructions_planted} instructions planted (ctxkeep's extractor finds "
        f"{report.instructions_found} of the instructions)"
        + (f"; llm-summary: {report.llm}" if report.llm else "")
    )
    if json_path is not None:
        json_path.write_bytes(to_json(report))
        click.echo(f"wrote {json_path}", err=True)
    if chart_path is not None:
        from ctxkeep.bench.chart import ChartUnavailable, write_fact_chart

        try:
            write_fact_chart(report, chart_path)
        except ChartUnavailable as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"wrote {chart_path}", err=True)
