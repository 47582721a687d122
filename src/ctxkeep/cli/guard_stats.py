"""``ctxkeep guard-stats``: what the guard's statistics store holds and recommends."""

from __future__ import annotations

import sqlite3
import sys
from collections import Counter

import click

from ctxkeep.cli import exit_codes
from ctxkeep.cli.options import text_or_json_option

__all__ = ["guard_stats"]


@click.command("guard-stats")
@text_or_json_option
def guard_stats(output: str) -> None:
    """Show the guard's statistics store ($CTXKEEP_HOME/stats.sqlite3): how many
    compactions it holds by provenance (run, test) and what the real ones recommend.
    Test records are counted, never used."""
    import msgspec

    from ctxkeep.verify import StatsStore

    store = StatsStore(provenance="run")  # reading only: the tag of writes does not matter
    try:
        records = store.records()
        advice = store.recommend()
    except sqlite3.Error as exc:
        click.echo(
            f"ctxkeep: error: {store.path}: not a readable statistics database ({exc}); "
            "move it aside and the guard starts a new one",
            err=True,
        )
        sys.exit(exit_codes.USAGE)
    by_provenance = Counter(r.provenance for r in records)
    if output == "json":
        data = {
            "path": str(store.path),
            "records": {"run": by_provenance["run"], "test": by_provenance["test"]},
            "recommendation": {
                "samples": advice.samples,
                "ignored_test_records": advice.ignored_test_records,
                "keep_fraction": advice.keep_fraction,
                "summary_kind": advice.summary_kind,
                "success_rate": advice.success_rate,
            },
        }
        sys.stdout.write(msgspec.json.encode(data, order="sorted").decode() + "\n")
        return
    click.echo(f"{store.path}: {by_provenance['run']} run, {by_provenance['test']} test records")
    click.echo(str(advice))
