"""The hand labels of benchmarks/ hold what docs/accuracy.md says they hold.

Every label file follows the schema; every item's text stands in its summary; every
grounded or derived item's grep finds its text on the line given as evidence; every
instruction's text stands on its line; and ``benchmarks/accuracy.py`` runs on them.
These are checks of the labels against the logs, not of ctxkeep's accuracy (no floors).
"""

from __future__ import annotations

import contextlib
import gzip
import importlib.util
import json
import shlex
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "benchmarks" / "real-logs"
LABEL_DIRS = (REAL / "labels", REPO / "benchmarks" / "example-labels")
LABELS = {"grounded", "derived", "invented", "unknowable"}
VIAS = {"message", "queued", "command", "tool_rejection", "previous_summary"}
STANDING_KINDS = {"prohibition", "obligation", "preference", "scope", "chosen_option", "correction"}

LABEL_FILES = sorted(p for d in LABEL_DIRS for p in d.glob("*.json"))


@cache
def log_lines(log: str) -> tuple[str, ...]:
    """The raw lines of a labelled log (a trimmed real log, or an example)."""
    if log.startswith("examples/"):
        text = (REPO / log).read_text(encoding="utf-8")
    else:
        text = gzip.decompress((REAL / log).read_bytes()).decode("utf-8")
    return tuple(text.split("\n"))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def line_text(log: str, line: int) -> str:
    """Every string of one line, decoded, whitespace collapsed. A line of a pretty-printed
    JSON file is a ``"key": value`` pair: its value is decoded; else the raw line is used."""
    raw = log_lines(log)[line - 1]
    decoded: Any = raw
    with contextlib.suppress(ValueError):
        decoded = json.loads(raw)
    if decoded is raw and ":" in raw:
        with contextlib.suppress(ValueError):
            decoded = json.loads(raw.split(":", 1)[1].strip().rstrip(","))
    return " ".join("\n".join(_strings(decoded)).split())


def flat(text: str) -> str:
    return " ".join(text.split())


def grep_needle(command: str) -> str:
    """The text a label's ``grep -F -- 'TEXT' FILE`` command searches for."""
    words = shlex.split(command)
    return words[words.index("--") + 1]


def compactions() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in LABEL_FILES:
        doc = json.loads(path.read_text(encoding="utf-8"))
        for c in doc["compactions"]:
            yield doc["log"], c


def test_there_are_label_files() -> None:
    assert LABEL_FILES
    real = [c for log, c in compactions() if log.startswith("claude-code")]
    assert len(real) >= 8  # issue 11: at least 8 real compactions labelled by hand


@pytest.mark.parametrize("path", LABEL_FILES, ids=lambda p: p.name)
def test_schema(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["schema"] == 1
    assert doc["log"]
    log_lines(doc["log"])  # the log is there
    for c in doc["compactions"]:
        first, last = c["sources"]["lines"]
        assert 1 <= first <= last < c["boundary_line"] <= c["summary_line"]
        for key in ("mid_session", "hooks_unrecorded", "unanswered_tool_calls", "note"):
            assert key in c
        for item in c["items"]:
            assert item["label"] in LABELS, item
            assert item["kind"], item
            assert "grep" in item, item
        for ins in c["instructions"]:
            assert ins["via"] in VIAS, ins
            if ins["standing"]:
                assert ins["kind"] in STANDING_KINDS, ins
                assert ins["status"] in {"kept", "reworded", "lost"}, ins
            else:
                assert ins["kind"] == "request", ins
                assert ins["status"] is None, ins
        for ref in c["references"]:
            assert isinstance(ref["resolved"], bool), ref


@pytest.mark.parametrize("path", LABEL_FILES, ids=lambda p: p.name)
def test_items_stand_in_the_summary_and_evidence_holds(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    log = doc["log"]
    for c in doc["compactions"]:
        summary = line_text(log, c["summary_line"])
        for item in c["items"]:
            assert flat(item["text"]) in summary, (c["index"], item["text"])
            if item["label"] in ("grounded", "derived"):
                needle = grep_needle(item["grep"])
                raw = log_lines(log)[item["line"] - 1]
                assert needle in raw, (c["index"], item["text"], item["line"])
        for ref in c["references"]:
            assert flat(ref["text"]) in summary, ref


@pytest.mark.parametrize("path", LABEL_FILES, ids=lambda p: p.name)
def test_instructions_stand_on_their_line(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    log = doc["log"]
    for c in doc["compactions"]:
        summary = line_text(log, c["summary_line"])
        for ins in c["instructions"]:
            assert flat(ins["text"]) in line_text(log, ins["line"]), ins
            if ins.get("summary_text"):
                assert flat(ins["summary_text"]) in summary, ins


def test_lost_means_absent_from_the_summary() -> None:
    """A standing instruction labelled lost is not in its summary word for word."""
    for log, c in compactions():
        summary = line_text(log, c["summary_line"]).casefold()
        for ins in c["instructions"]:
            if ins["standing"] and ins["status"] == "lost":
                assert flat(ins["text"]).casefold() not in summary, ins


def _accuracy() -> ModuleType:
    """benchmarks/accuracy.py as a module (benchmarks/ is not a package)."""
    name = "ctxkeep_accuracy_benchmark"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "accuracy.py")
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up while being made
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_accuracy_benchmark_runs(tmp_path: Path) -> None:
    module = _accuracy()
    out = tmp_path / "figures.json"
    assert module.main(["--json", str(out)]) == 0
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert set(figures) == {"real", "examples"}
    for name, counts in figures.items():
        assert counts["compactions"] > 0, name
        recall = counts["ck002_recall_invented"]
        assert recall["tp"] + recall["fn"] > 0, name  # invented items are labelled
    lost = figures["real"]["ck003_recall_lost"]
    assert lost["tp"] + lost["fn"] > 0


def test_matching_rules() -> None:
    """The matcher of accuracy.py on the cases docs/accuracy.md names."""
    acc = _accuracy()
    items = [
        acc.Item("InitializeSession", "symbol", "grounded"),
        acc.Item("initializeSession", "symbol", "unknowable"),
        acc.Item("cmd/entire/cli/strategy/manual_commit_git.go", "path", "grounded"),
        acc.Item("7 files", "count", "invented"),
        acc.Item("tests/build", "not_item", "not_item"),
    ]
    assert acc.match_item("initializeSession(", items)[0].label == "unknowable"
    assert acc.match_item("`InitializeSession()`", items)[0].label == "grounded"
    assert acc.match_item("manual_commit_git.go", items)[1] == "inside"
    assert acc.match_item("across 7 files", items)[0].label == "invented"
    assert acc.match_item("tests/build", items)[0].label == "not_item"
    assert acc.match_item("7", items)[0] is None  # a part of an invented item is not it
    ins = [acc.Instruction(3, "Never run the full test suite — tests/test_fuzz.py", True, "lost")]
    rep = acc.Reported("CK003", 1, "never run the full test suite", "error", (3,))
    assert acc.match_instruction(rep, ins) is ins[0]
    other = acc.Reported("CK003", 1, "always", "error", (3,))
    assert acc.match_instruction(other, ins) is None


def test_items_detail_is_used_when_present() -> None:
    """Findings with a per-item ``items_detail`` are read item by item, with confidence."""
    acc = _accuracy()
    finding = {
        "rule_id": "CK002",
        "compaction": 1,
        "level": "warn",
        "lines": [32],
        "items": ["a", "b"],
        "confidence": "low",
        "items_detail": [
            {"item": "7 files", "kind": "count", "confidence": "low", "why": "within 2"},
        ],
    }
    reps = list(acc.reported_items(finding))
    assert [(r.text, r.kind, r.confidence, r.level) for r in reps] == [
        ("7 files", "count", "low", "warn")
    ]
    del finding["items_detail"]
    assert [r.text for r in acc.reported_items(finding)] == ["a", "b"]
