"""Accuracy of the audit's judgement, measured against hand labels (docs/accuracy.md).

    .venv/bin/python benchmarks/accuracy.py [--verbose] [--json FILE] [--set real|examples]

Two labelled sets: the real Claude Code / Codex logs of ``benchmarks/real-logs/`` (trimmed
copies, decompressed into a temporary folder) with their labels in
``benchmarks/real-logs/labels/``, and the bundled synthetic ``examples/`` with labels in
``benchmarks/example-labels/``. Each labelled log is audited in process (``ctxkeep.audit``,
every rule, default config); its findings, as the JSON report carries them, are matched to
the labels, and per set this prints:

- CK002 (summary-hallucination): precision of the items reported at ``error`` (an item
  labelled grounded or derived is a false positive, and so is one labelled unknowable: an
  error says "invented" and the log cannot show it), precision at any level (unknowable
  below ``error`` is left out: that is where it belongs), and recall of the items labelled
  invented, at any level;
- CK003 (constraint-lost): recall of the standing instructions labelled lost, and
  precision of the reported lost constraints;
- CK006 (ghost-reference): findings on references the summary itself resolves (must be 0),
  and recall of the labelled ghosts.

With the counts behind each figure (TP/FP/FN). ``--verbose`` lists every miss and false
alarm with its text. A finding's per-item ``items_detail`` (``{item, kind, confidence,
why}``) is used when it is there, else its ``items``. The matching rules are in
docs/accuracy.md. Exit 0 whatever the figures (a measurement), 2 when it cannot run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ctxkeep
from ctxkeep.report.data import finding_to_dict

REPO = Path(__file__).resolve().parent.parent
REAL_LOGS = REPO / "benchmarks" / "real-logs"
REAL_LABELS = REAL_LOGS / "labels"
EXAMPLE_LABELS = REPO / "benchmarks" / "example-labels"

# How much of the shorter text's words a reported constraint and a labelled instruction
# must share to be the same instruction (see docs/accuracy.md, "Matching").
CONSTRAINT_OVERLAP = 0.5

_QUOTES = "`'\"“”‘’「」"
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[\u3400-\u9fff]|[^\W_]+", re.UNICODE)


# --- labels and findings -------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One labelled item of a summary."""

    text: str
    kind: str
    label: str


@dataclass(frozen=True)
class Instruction:
    """One labelled user instruction of a compaction's replaced history."""

    line: int
    text: str
    standing: bool
    status: str | None


@dataclass(frozen=True)
class Reference:
    """One labelled back-reference of a summary."""

    text: str
    resolved: bool


@dataclass(frozen=True)
class Compaction:
    """The labels of one compaction."""

    log: str
    index: int
    items: tuple[Item, ...]
    instructions: tuple[Instruction, ...]
    references: tuple[Reference, ...]


@dataclass(frozen=True)
class Reported:
    """One item of one finding: its text, the finding's level and lines, and its detail."""

    rule_id: str
    compaction: int | None
    text: str
    level: str
    lines: tuple[int, ...] = ()
    confidence: str | None = None
    kind: str | None = None


def load_labels(folder: Path) -> list[tuple[str, list[Compaction]]]:
    """Every label file of ``folder``: (its log, the compactions labelled in it)."""
    out = []
    for path in sorted(folder.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        compactions = [
            Compaction(
                log=doc["log"],
                index=c["index"],
                items=tuple(Item(i["text"], i["kind"], i["label"]) for i in c["items"])
                + tuple(Item(n["text"], "not_item", "not_item") for n in c.get("not_items", ())),
                instructions=tuple(
                    Instruction(i["line"], i["text"], i["standing"], i.get("status"))
                    for i in c["instructions"]
                ),
                references=tuple(Reference(r["text"], r["resolved"]) for r in c["references"]),
            )
            for c in doc["compactions"]
        ]
        out.append((doc["log"], compactions))
    return out


def reported_items(finding: dict[str, Any]) -> Iterator[Reported]:
    """The items of one finding (JSON shape); per-item detail when the finding has it."""
    base = {
        "rule_id": finding["rule_id"],
        "compaction": finding.get("compaction"),
        "level": finding["level"],
        "lines": tuple(finding.get("lines") or ()),
    }
    detail = finding.get("items_detail")
    if isinstance(detail, list) and detail:
        for d in detail:
            yield Reported(
                text=str(d.get("item", "")),
                confidence=d.get("confidence"),
                kind=d.get("kind"),
                **base,
            )
        return
    for text in finding.get("items") or ():
        yield Reported(text=str(text), confidence=finding.get("confidence"), **base)


def audit_findings(path: Path) -> list[Reported]:
    """Audit one log in process; every reported item of every finding."""
    result = ctxkeep.audit(path)
    if not result.sessions:
        raise SystemExit(f"accuracy: {path} could not be read")
    return [r for f in result.findings for r in reported_items(finding_to_dict(f))]


# --- matching -------------------------------------------------------------------------


def norm(text: str, fold: bool = True) -> str:
    """An item's text for comparison: no quotes or backticks around it, no trailing
    punctuation or call parentheses, single spaces, case folded unless ``fold`` is off."""
    t = " ".join(text.split()).strip(_QUOTES + " ")
    t = re.sub(r"[.,;:]+$", "", t)
    t = re.sub(r"\(\)?$", "", t)
    t = t.strip(_QUOTES + " ")
    return t.casefold() if fold else t


def _inside(small: str, big: str) -> bool:
    """``small`` occurs in ``big`` and is not cut out of a longer word."""
    if not small:
        return False
    start = big.find(small)
    while start >= 0:
        end = start + len(small)
        before = big[start - 1] if start else " "
        after = big[end] if end < len(big) else " "
        word = r"[\w]"
        if not (re.match(word, before) and re.match(word, small[0])) and not (
            re.match(word, after) and re.match(word, small[-1])
        ):
            return True
        start = big.find(small, start + 1)
    return False


def match_item(text: str, items: Iterable[Item]) -> tuple[Item | None, str]:
    """The labelled item a reported item is, and how it was matched.

    ``exact`` (same text after :func:`norm`, the same case preferred; a text the
    labeller judged not to be an item has the label ``not_item``); ``inside`` (the
    reported text is part of a labelled item's text; it inherits that label only when it
    is grounded: a part of a verbatim text is verbatim); ``around`` (a labelled item's
    text is part of the reported text; it inherits only ``invented``). Anything else is
    unmatched (None).
    """
    n = norm(text)
    items = list(items)
    for item in items:  # the same case first: initializeSession is not InitializeSession
        if norm(item.text, fold=False) == norm(text, fold=False):
            return item, "exact"
    for item in items:
        if norm(item.text) == n:
            return item, "exact"
    items = [i for i in items if i.label != "not_item"]
    containing = [i for i in items if _inside(n, norm(i.text))]
    if containing:
        best = min(containing, key=lambda i: len(i.text))
        return (best, "inside") if best.label == "grounded" else (None, f"inside {best.label}")
    within = [i for i in items if _inside(norm(i.text), n) and i.label == "invented"]
    if within:
        return max(within, key=lambda i: len(i.text)), "around"
    return None, "unmatched"


def words(text: str) -> set[str]:
    """Lower-cased words, and each CJK character on its own (no segmenter needed here)."""
    return {w.casefold() for w in _WORD.findall(text)}


def overlap(a: str, b: str) -> float:
    """Share of the shorter text's words that the other text also has (0..1)."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / min(len(wa), len(wb))


def match_instruction(rep: Reported, instructions: Iterable[Instruction]) -> Instruction | None:
    """The labelled instruction a reported lost constraint is: the best word overlap of at
    least :data:`CONSTRAINT_OVERLAP` (a tie goes to one whose line the finding names)."""
    best: tuple[float, bool, Instruction] | None = None
    for ins in instructions:
        score = 1.0 if norm(rep.text) in norm(ins.text) else overlap(rep.text, ins.text)
        if score < CONSTRAINT_OVERLAP:
            continue
        key = (score, ins.line in rep.lines, ins)
        if best is None or key[:2] > best[:2]:
            best = key
    return best[2] if best else None


# --- figures --------------------------------------------------------------------------


@dataclass
class Figure:
    """A ratio and the counts behind it; ``None`` when there is nothing to measure."""

    name: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    detail: dict[str, int] = field(default_factory=dict)
    kind: str = "precision"  # or "recall" or "count"

    @property
    def value(self) -> float | None:
        if self.kind == "count":
            return float(self.fp)
        total = self.tp + (self.fp if self.kind == "precision" else self.fn)
        return round(self.tp / total, 3) if total else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "kind": self.kind,
            **self.detail,
        }


@dataclass
class Report:
    """The figures of one labelled set and the lines ``--verbose`` prints."""

    name: str
    compactions: int = 0
    figures: dict[str, Figure] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def fig(self, key: str, name: str, kind: str) -> Figure:
        if key not in self.figures:
            self.figures[key] = Figure(name, kind=kind)
        return self.figures[key]


def score_ck002(report: Report, c: Compaction, reps: list[Reported]) -> None:
    """CK002: precision at error, precision at any level, recall of invented items."""
    at_error = report.fig("ck002_precision_error", "CK002 precision at error", "precision")
    any_level = report.fig("ck002_precision_any", "CK002 precision at any level", "precision")
    recall = report.fig("ck002_recall_invented", "CK002 recall of invented items", "recall")
    for rep in reps:
        item, how = match_item(rep.text, c.items)
        label = item.label if item else "unmatched"
        where = f"{c.log}#{c.index} [{rep.level}{'/' + rep.confidence if rep.confidence else ''}]"
        if rep.level == "error":
            _count(at_error, label == "invented", label)
        if rep.level == "error" or label != "unknowable":
            _count(any_level, label == "invented", label)
        if label != "invented":
            report.notes.append(f"CK002 false alarm {where} {label} ({how}): {rep.text!r}")
    for item in c.items:
        if item.label != "invented":  # not_item entries are skipped here too
            continue
        found = any(match_item(r.text, [item])[0] is item for r in reps)
        if found:
            recall.tp += 1
        else:
            recall.fn += 1
            report.notes.append(f"CK002 miss {c.log}#{c.index} invented {item.kind}: {item.text!r}")


def _count(fig: Figure, true_positive: bool, label: str) -> None:
    if true_positive:
        fig.tp += 1
    else:
        fig.fp += 1
        fig.detail[f"fp_{label}"] = fig.detail.get(f"fp_{label}", 0) + 1


def score_ck003(report: Report, c: Compaction, reps: list[Reported]) -> None:
    """CK003: recall of lost standing instructions, precision of reported losses."""
    recall = report.fig("ck003_recall_lost", "CK003 recall of lost standing instr.", "recall")
    precision = report.fig("ck003_precision", "CK003 precision", "precision")
    lost = [i for i in c.instructions if i.standing and i.status == "lost"]
    matched: set[Instruction] = set()
    for rep in reps:
        ins = match_instruction(rep, c.instructions)
        if ins is not None and ins.standing and ins.status == "lost" and ins not in matched:
            matched.add(ins)
            precision.tp += 1
            continue
        if ins is None:
            why = "no labelled instruction"
        elif ins in matched:
            why = "second report of one instruction"
        else:
            why = "standing, " + str(ins.status) if ins.standing else "one-shot request"
        _count(precision, False, why.split(",")[0].replace(" ", "_"))
        report.notes.append(f"CK003 false alarm {c.log}#{c.index} ({why}): {rep.text!r}")
    for ins in lost:
        if ins in matched:
            recall.tp += 1
        else:
            recall.fn += 1
            report.notes.append(f"CK003 miss {c.log}#{c.index} line {ins.line}: {ins.text!r}")


def score_ck006(report: Report, c: Compaction, reps: list[Reported]) -> None:
    """CK006: findings on resolved references (must be 0), recall of ghosts."""
    on_resolved = report.fig("ck006_on_resolved", "CK006 findings on resolved refs", "count")
    recall = report.fig("ck006_recall_ghost", "CK006 recall of ghost references", "recall")
    hit: set[Reference] = set()
    for rep in reps:
        n = norm(rep.text)
        ref = next((r for r in c.references if n in norm(r.text) or norm(r.text) in n), None)
        if ref is not None and not ref.resolved:
            hit.add(ref)
            continue
        on_resolved.fp += 1
        label = "resolved" if ref else "unlabelled"
        on_resolved.detail[label] = on_resolved.detail.get(label, 0) + 1
        report.notes.append(f"CK006 false alarm {c.log}#{c.index} ({label}): {rep.text!r}")
    for ref in c.references:
        if ref.resolved:
            continue
        if ref in hit:
            recall.tp += 1
        else:
            recall.fn += 1
            report.notes.append(f"CK006 miss {c.log}#{c.index}: {ref.text!r}")


def measure(
    name: str, labelled: list[tuple[str, list[Compaction]]], logs: dict[str, Path]
) -> Report:
    """Audit every labelled log of one set and score its findings against the labels."""
    report = Report(name)
    for log, compactions in labelled:
        reps = audit_findings(logs[log])
        for c in compactions:
            report.compactions += 1
            mine = [r for r in reps if r.compaction == c.index]
            score_ck002(report, c, [r for r in mine if r.rule_id == "CK002"])
            score_ck003(report, c, [r for r in mine if r.rule_id == "CK003"])
            score_ck006(report, c, [r for r in mine if r.rule_id == "CK006"])
    return report


def real_set(tmp: Path) -> Report:
    """The real logs: decompressed into ``tmp`` and measured."""
    labelled = load_labels(REAL_LABELS)
    logs = {}
    for log, _ in labelled:
        target = tmp / log.removesuffix(".gz")
        target.write_bytes(gzip.decompress((REAL_LOGS / log).read_bytes()))
        logs[log] = target
    return measure("real", labelled, logs)


def example_set() -> Report:
    """The bundled examples, measured where they are."""
    labelled = load_labels(EXAMPLE_LABELS)
    return measure("examples", labelled, {log: REPO / log for log, _ in labelled})


# --- output ---------------------------------------------------------------------------


def table(reports: list[Report]) -> str:
    """The figures as a Markdown table: one row per figure, one column per set."""
    keys = list(dict.fromkeys(k for r in reports for k in r.figures))
    head = "| figure | " + " | ".join(f"{r.name} ({r.compactions} compactions)" for r in reports)
    lines = [head + " |", "| --- |" + " --- |" * len(reports)]
    for key in keys:
        cells = []
        for r in reports:
            f = r.figures.get(key)
            cells.append(_cell(f) if f else "")
        name = next(r.figures[key].name for r in reports if key in r.figures)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(f: Figure) -> str:
    extra = "".join(f", {k} {v}" for k, v in sorted(f.detail.items()))
    if f.kind == "count":
        return f"**{f.fp}**{' (' + extra[2:] + ')' if extra else ''}"
    value = "n/a" if f.value is None else f"{f.value:.2f}"
    if f.kind == "precision":
        return f"**{value}** (TP {f.tp}, FP {f.fp}{extra})"
    return f"**{value}** (TP {f.tp}, FN {f.fn})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=("real", "examples"), help="measure one set only")
    parser.add_argument("--verbose", action="store_true", help="list misses and false alarms")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures here")
    args = parser.parse_args(argv)
    reports = []
    with tempfile.TemporaryDirectory(prefix="ctxkeep-accuracy-") as tmp:
        if args.set in (None, "real"):
            reports.append(real_set(Path(tmp)))
        if args.set in (None, "examples"):
            reports.append(example_set())
    print(f"ctxkeep {ctxkeep.__version__}: accuracy against hand labels (docs/accuracy.md)\n")
    print(table(reports))
    if args.verbose:
        for r in reports:
            print(f"\n## {r.name}: misses and false alarms\n")
            print("\n".join(f"- {n}" for n in r.notes) or "(none)")
    if args.json:
        doc = {
            r.name: {
                "compactions": r.compactions,
                **{k: f.to_dict() for k, f in r.figures.items()},
            }
            for r in reports
        }
        args.json.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
