"""The HTML report as bytes: self-contained, escaped, deterministic, and the same
sessions, counts and findings as the JSON report. (The browser tests open it.)"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ctxkeep.engine import audit
from ctxkeep.report import render, report_names
from ctxkeep.report.html import embedded_json
from tests.conftest import EXAMPLES, run_cli
from tests.html.sessions import (
    HOSTILE_CLOSE,
    HOSTILE_CONSTRAINT,
    HOSTILE_IMG,
    HOSTILE_SCRIPT,
    write_hostile_log,
)


class _Page(HTMLParser):
    """The page's elements (tag, attributes) and its script blocks' text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[tuple[dict[str, str], str]] = []
        self._in_script: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.elements.append((tag, attributes))
        if tag == "script":
            self._in_script = attributes
            self.scripts.append((attributes, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = None

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def with_class(self, name: str) -> list[dict[str, str]]:
        return [a for _, a in self.elements if name in a.get("class", "").split()]

    def data_blocks(self) -> dict[str, object]:
        return {
            a["id"]: json.loads(text)
            for a, text in self.scripts
            if a.get("type") == "application/json"
        }


def _parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def test_html_is_a_format_of_audit_and_sweep() -> None:
    assert "html" in report_names()
    for command in ("audit", "sweep"):
        help_text = run_cli(command, "--help").stdout
        assert "html" in help_text


def test_markup_from_the_log_stays_text(tmp_path: Path) -> None:
    log = write_hostile_log(tmp_path / "hostile.jsonl")
    page = render("html", audit(log, detail=True))
    parsed = _parse(page)
    # Exactly two executable scripts' worth of <script> tags: the page's own, no more.
    inline = [a for a, _ in parsed.scripts if a.get("type") != "application/json"]
    assert len(inline) == 1
    for hostile in (HOSTILE_SCRIPT, HOSTILE_IMG, HOSTILE_CLOSE, "<b>bold</b>"):
        assert hostile not in page
    assert not any(tag == "img" for tag, _ in parsed.elements)
    # The embedded data reads back as the exact text of the log.
    (data,) = parsed.data_blocks().values()
    assert isinstance(data, dict)
    history_text = "\n".join(row[4] for row in data["history"])
    for hostile in (HOSTILE_SCRIPT, HOSTILE_IMG, HOSTILE_CLOSE, HOSTILE_CONSTRAINT):
        assert hostile in history_text
    assert HOSTILE_SCRIPT in data["summary"]
    assert [c["text"] for c in data["constraints"]] == [HOSTILE_CONSTRAINT]
    assert data["constraints"][0]["survival"] == "lost"


@pytest.mark.parametrize("text", ["</script>", "<!--", "a & b", "\u2028", "</SCRIPT >"])
def test_embedded_json_cannot_end_its_script(text: str) -> None:
    encoded = embedded_json({"t": text})
    assert "<" not in encoded
    assert "\u2028" not in encoded
    assert json.loads(encoded) == {"t": text}


def test_self_contained_and_deterministic(tmp_path: Path) -> None:
    logs = tmp_path / "examples"
    shutil.copytree(EXAMPLES, logs)
    first = run_cli("sweep", "examples", "--format", "html", "--jobs", "2", cwd=tmp_path)
    second = run_cli("sweep", "examples", "--format", "html", "--jobs", "1", cwd=tmp_path)
    assert first.returncode == 1, first.stderr  # findings
    assert first.stdout == second.stdout
    page = first.stdout
    assert page.startswith("<!DOCTYPE html>")
    parsed = _parse(page)
    for tag, attrs in parsed.elements:
        for name in ("src", "href", "action", "data"):
            assert not attrs.get(name, "#").split("#")[0], (tag, attrs)
        assert tag not in {"link", "iframe", "img", "object", "embed"}
    # The page's own markup, style and script, without the log data embedded in it.
    own = re.sub(r'<script type="application/json"[^>]*>.*?</script>', "", page, flags=re.S)
    assert "url(" not in own
    assert "@import" not in own
    assert "Content-Security-Policy" in own
    assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", own)


def test_sessions_counts_and_compactions_match_the_json_report(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    page = run_cli("sweep", "examples", "--format", "html", cwd=tmp_path).stdout
    report = json.loads(run_cli("sweep", "examples", "--format", "json", cwd=tmp_path).stdout)
    parsed = _parse(page)
    sections = parsed.with_class("ck-session")
    assert [s["data-path"] for s in sections] == [s["path"] for s in report["sessions"]]
    assert [int(s["data-rank"]) for s in sections] == list(range(1, len(sections) + 1))
    compactions = parsed.with_class("ck-compaction")
    assert len(compactions) == report["totals"]["compactions"]["started"]
    blocks = parsed.data_blocks()
    assert sorted(blocks) == sorted(c["data-detail"] for c in compactions)
    lost = sum(
        1
        for block in blocks.values()
        if isinstance(block, dict)
        for c in block["constraints"]
        if c["survival"] == "lost"
    )
    totals = report["totals"]["constraints"]
    assert lost == totals["total"] - totals["kept"]
    charts = [a for tag, a in parsed.elements if tag == "svg"]
    assert len(charts) == len(report["sessions"])


def test_the_page_shows_the_compactions_the_audit_read(tmp_path: Path) -> None:
    """With ``--summary-index`` a plain message list has a compaction only as the audit
    reads it; the page once read the log again without the option and showed none."""
    log = tmp_path / "chat.jsonl"
    records = [
        {"role": "user", "content": "Never push to main. Fix the flaky login test."},
        {"role": "assistant", "content": "I will fix the login test on a branch."},
        {"role": "user", "content": "So far: branch feature/x is ready; see build.gradle."},
        {"role": "assistant", "content": "Continuing."},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    args = ("audit", "--summary-index", "2", str(log))
    report = json.loads(run_cli(*args, "--format", "json").stdout)
    (session,) = report["sessions"]
    assert session["compactions"]["started"] == 1
    page = run_cli(*args, "--format", "html").stdout
    parsed = _parse(page)
    assert len(parsed.with_class("ck-compaction")) == 1
    assert parsed.with_class("ck-note") == []  # the note of a page without detail
    (data,) = parsed.data_blocks().values()
    assert isinstance(data, dict)
    assert data["summary"] == records[2]["content"]
    assert [row[4] for row in data["history"]] == [r["content"] for r in records[:2]]
