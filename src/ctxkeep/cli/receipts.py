"""``ctxkeep receipts``: what a receipts file records, run by run."""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any

import click

from ctxkeep.cli import exit_codes
from ctxkeep.cli.options import text_or_json_option


def _run_summary(run: Any) -> dict[str, Any]:
    stats = run.stats
    reasons = Counter(str(r.get("reason")) for r in run.records)
    return {
        "run": run.run_id,
        "line": run.line,
        "scorer": run.scorer.get("name"),
        "messages": len(run.records),
        "kept": sum(1 for r in run.records if r.get("kept") is True),
        "dropped": sum(1 for r in run.records if r.get("kept") is False),
        "bytes_before": stats.get("bytes_before"),
        "bytes_after": stats.get("bytes_after"),
        "target_bytes": run.settings.get("target_bytes"),
        "target_tokens": run.settings.get("target_tokens"),
        "degraded": stats.get("degraded_reason"),
        "reasons": dict(sorted(reasons.items())),
        "summary": _summarizer_summary(run.summarizer),
    }


def _summarizer_summary(record: Any) -> dict[str, Any] | None:
    """Who wrote the run's summary and what its audit changed (None: extractive)."""
    if not record:
        return None
    removed = record.get("removed")
    return {
        "summarizer": record.get("name"),
        "model": record.get("model"),
        "used": record.get("used") is True,
        "failed": record.get("failed"),
        "appended": list(record.get("appended") or []),
        "removed": [r.get("text") for r in removed if isinstance(r, dict)]
        if isinstance(removed, list)
        else [],
    }


@click.command("receipts")
@click.argument("path", type=str)
@text_or_json_option
def receipts_command(path: str, output: str) -> None:
    """Summarise the receipts file PATH: each trusted run (scorer, kept and dropped, bytes
    before -> after, why messages were kept or dropped) and every line that is not trusted
    (a torn last line, a run cut short). A run whose summary a model wrote (compact
    --summarizer) also says who wrote it and what its audit changed. Exits 2 when no run
    can be trusted.
    """
    from ctxkeep.compactor import read_receipts
    from ctxkeep.log.model import located

    file = read_receipts(path)
    runs = [_run_summary(r) for r in file.runs]
    problems = [{"line": line, "reason": reason} for line, reason in file.problems]
    if output == "json":
        sys.stdout.write(
            json.dumps({"path": path, "runs": runs, "problems": problems}, indent=2, sort_keys=True)
            + "\n"
        )
    else:
        click.echo(f"{path}: {len(runs)} trusted run{'s' if len(runs) != 1 else ''}")
        for r in runs:
            target = (
                f"{r['target_bytes']} bytes"
                if r["target_bytes"] is not None
                else f"{r['target_tokens']} tokens"
            )
            click.echo(
                f"  run {r['run']} (line {r['line']}): scorer {r['scorer']}, "
                f"target {target}, {r['messages']} messages, kept {r['kept']}, "
                f"dropped {r['dropped']}, bytes {r['bytes_before']} -> "
                f"{r['bytes_after']}"
            )
            reasons = ", ".join(f"{k} {v}" for k, v in r["reasons"].items())
            click.echo(f"    reasons: {reasons}")
            if r["degraded"]:
                click.echo(f"    DEGRADED: {r['degraded']}")
            summary = r["summary"]
            if summary is not None and summary["used"]:
                click.echo(
                    f"    summary by {summary['summarizer']} (model {summary['model']}), "
                    f"audited: {len(summary['appended'])} lost instruction(s) appended, "
                    f"{len(summary['removed'])} invented item(s) removed"
                )
            elif summary is not None:
                click.echo(
                    f"    summarizer {summary['summarizer']} failed ({summary['failed']}): "
                    "the extractive summary was used"
                )
        for line, reason in file.problems:
            click.echo(f"  problem: {located(path, line)}: {reason}")
    if not runs:
        sys.exit(exit_codes.USAGE)
