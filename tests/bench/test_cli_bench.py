"""``ctxkeep bench`` as a user runs it: a real subprocess writing into tmp_path."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import click

from ctxkeep.cli.bench import bench
from tests.conftest import run_cli


def test_bench_quality_prints_a_table_writes_json_and_a_chart(tmp_path: Path) -> None:
    out = tmp_path / "quality.json"
    chart = tmp_path / "quality.png"
    # The chart needs the bench extra (matplotlib); without it the option fails clearly.
    has_matplotlib = importlib.util.find_spec("matplotlib") is not None
    result = run_cli(
        "bench",
        "quality",
        "--json",
        str(out),
        "--chart",
        str(chart),
        "--compactor",
        "recency-truncation",
        "--compactor",
        "ctxkeep/lexical",
    )
    if not has_matplotlib:
        assert result.returncode == 1
        assert "pip install 'ctxkeep[bench]'" in result.stderr
    else:
        assert result.returncode == 0, result.stderr
        assert chart.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "recency-truncation" in result.stdout
    assert "ctxkeep/lexical" in result.stdout
    assert "planted constraints" in result.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["corpus"] == "small"
    assert {r["budget"] for r in data["rows"]} == {0.5, 0.25, 0.1}
    assert {r["compactor"] for r in data["rows"]} == {"recency-truncation", "ctxkeep/lexical"}
    # Not a terminal: no progress bar on stderr.
    assert "quality [" not in result.stderr


def test_bench_help_lists_both_benchmarks() -> None:
    result = run_cli("bench", "--help")
    assert result.returncode == 0
    assert "quality" in result.stdout
    assert "speed" in result.stdout


def test_bench_speed_runs_at_the_smallest_sizes(tmp_path: Path) -> None:
    out = tmp_path / "speed.json"
    result = run_cli(
        "bench",
        "speed",
        "--max-mb",
        "1",
        "--throughput-mb",
        "0.5",
        "--compaction-max",
        "1000",
        "--sweep-files",
        "2",
        "--sweep-mb",
        "0.3",
        "--workdir",
        str(tmp_path),
        "--json",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [g["target_mb"] for g in data["growth"]] == [1]
    assert data["growth"][0]["audit_max_rss_kb"] > 0
    assert data["growth"][0]["compactions"] >= 1
    assert [s["jobs"] for s in data["sweep"]] == [1, 2]
    assert [c["messages"] for c in data["compaction"]] == [1000]
    assert data["throughput"]["log_bytes"] >= 500_000
    assert "JSON decode" in result.stdout
    # The generated logs are removed; only the report is left.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["speed.json"]


def test_every_bench_option_is_in_the_readme() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Benchmarks\n", 1)[1].split("\n## ", 1)[0]
    for command in bench.commands.values():
        assert f"ctxkeep bench {command.name}" in section
        for param in command.params:
            if isinstance(param, click.Option) and param.name != "help":
                for opt in param.opts:
                    assert opt in section, f"{command.name} {opt} is not documented"
