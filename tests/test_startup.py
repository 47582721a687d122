"""Start-up: ``ctxkeep --help`` imports the CLI and nothing it does not run.

What a command costs to start is held here by the modules it loads, not by a clock
(benchmarks/startup.py times it: at most 2x ``python -c "import click"``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ctxkeep

_LOADED = """
import json, sys
from ctxkeep.cli.main import cli
try:
    cli(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""
_OURS = ("ctxkeep", "msgspec", "tiktoken")

# What listing the commands needs: the CLI's entry point and nothing of a command.
HELP_MODULES = {"ctxkeep", "ctxkeep._lazy", "ctxkeep._version", "ctxkeep.cli", "ctxkeep.cli.main"}


def _loaded(*args: str, cwd: Path | None = None, names: tuple[str, ...] = _OURS) -> set[str]:
    """The modules whose names start with ``names`` that ``ctxkeep ARGS`` has loaded
    when it ends. The child imports the ctxkeep under test, wherever ``cwd`` is (a
    relative ``PYTHONPATH=src`` would find another checkout's from a temporary folder)."""
    here = str(Path(ctxkeep.__file__).resolve().parent.parent)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.run(
        [sys.executable, "-c", _LOADED, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )
    return {m for m in json.loads(proc.stdout.splitlines()[-1]) if m.startswith(names)}


def test_help_loads_no_command() -> None:
    assert _loaded("--help") == HELP_MODULES


@pytest.mark.parametrize("command", ["audit", "sweep", "diff", "show", "compact", "bench"])
def test_a_commands_help_loads_no_reader_rule_compactor_or_guard(command: str) -> None:
    loaded = _loaded(command, "--help")
    heavy = {
        m
        for m in loaded
        if m.startswith(
            (
                "ctxkeep.engine",
                "ctxkeep.rules",
                "ctxkeep.compactor",
                "ctxkeep.verify",
                "ctxkeep.log.reader",
                "ctxkeep.log.adapters.",
                "ctxkeep.report.",
                "tiktoken",
            )
        )
    }
    assert heavy == set()


def test_each_listed_summary_is_its_commands_first_sentence() -> None:
    """``--help`` lists the commands from ``Lazy.summary`` without importing them: each
    summary must be what click would take from the command's docstring."""
    import click

    from ctxkeep.cli.main import COMMANDS, LazyGroup, cli

    ctx = click.Context(cli)
    for name, lazy in COMMANDS.items():
        command = cli.get_command(ctx, name)
        assert command is not None
        assert lazy.summary == command.get_short_help_str(limit=10_000), name
        if isinstance(command, LazyGroup):  # a plain group lists its imported commands
            for sub_name in command.list_commands(ctx):
                sub = command.get_command(ctx, sub_name)
                assert sub is not None
                lazy_sub = command.lazy_commands[sub_name]
                assert lazy_sub.summary == sub.get_short_help_str(limit=10_000), sub_name


def test_the_listing_is_the_one_click_writes_from_the_commands() -> None:
    import click

    from ctxkeep.cli.main import cli

    ctx = click.Context(cli)
    ours, clicks = click.HelpFormatter(), click.HelpFormatter()
    cli.format_commands(ctx, ours)
    click.Group.format_commands(cli, ctx, clicks)  # imports every command
    assert ours.getvalue() == clicks.getvalue()
    assert "audit" in ours.getvalue()


def test_an_audit_loads_only_what_it_runs(tmp_path: Path) -> None:
    """``ctxkeep audit`` of one Claude Code log, in a folder with no settings file, loads
    no process pool (``sweep``'s), no reader of a format sniffed after Claude Code's, no
    baseline file format (no ``--baseline``), no settings parser and no other report
    format (docs/design.md, "Start-up")."""
    log = Path(__file__).parent.parent / "examples/claude-code/tinyparse-three-compactions.jsonl"
    loaded = _loaded(
        "audit", "--format", "json", "--no-ledger", str(log),
        cwd=tmp_path, names=(*_OURS, "concurrent", "multiprocessing", "tomllib"),
    )  # fmt: skip
    assert "ctxkeep.log.adapters.claude_code" in loaded  # it did read the log
    assert {m for m in loaded if m.startswith("ctxkeep.report.")} == {
        "ctxkeep.report.data",
        "ctxkeep.report.json",
    }
    not_run = {
        "concurrent.futures.process",
        "multiprocessing",
        "tomllib",
        "ctxkeep.baseline",
        "ctxkeep.log.adapters._arrays",
        "ctxkeep.log.adapters.codex",
        "ctxkeep.log.adapters.openhands",
        "ctxkeep.log.adapters.anthropic",
        "ctxkeep.log.adapters.openai",
        "ctxkeep.compactor",
        "ctxkeep.verify",
        "ctxkeep.mcp",
        "ctxkeep.scorers",
        "tiktoken",
    }
    assert loaded & not_run == set()


def test_a_compaction_loads_only_the_extractors_it_calls(tmp_path: Path) -> None:
    """``ctxkeep compact`` finds constraints and identifiers; it does not load the
    auditor's claims, references or survival judgement (``ctxkeep.extract`` is lazy)."""
    messages = Path(__file__).parent.parent / "examples/openai/ledgerlite-csv-export.json"
    loaded = _loaded("compact", "--target-bytes", "2000", str(messages), cwd=tmp_path)
    assert "ctxkeep.extract.constraints" in loaded  # it did look for constraints
    assert {
        "ctxkeep.extract.claims",
        "ctxkeep.extract.references",
        "ctxkeep.extract.survival",
    } & loaded == set()


def test_a_compaction_loads_no_http(tmp_path: Path) -> None:
    """A compaction with the local (lexical) scorer reads the scorer options but sends
    nothing: it loads no HTTP client (``ctxkeep.scorers._transport`` and what it imports)."""
    messages = Path(__file__).parent.parent / "examples/openai/ledgerlite-csv-export.json"
    loaded = _loaded(
        "compact", "--target-bytes", "2000", str(messages),
        cwd=tmp_path, names=(*_OURS, "http", "urllib", "email"),
    )  # fmt: skip
    assert "ctxkeep.scorers.lexical" in loaded  # it did score
    assert {"http.client", "urllib.request", "ctxkeep.scorers._transport"} & loaded == set()
