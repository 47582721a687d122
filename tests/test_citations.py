"""The code and the docs cite only documents a clone has: the repository's docs/*.md.

The first design notes lived outside the repository (an upper-case design, formats, style
and dependencies note in a shared folder). Someone who clones ctxkeep cannot read them,
so nothing may point at them; what they said is in docs/design.md, docs/formats.md and
docs/dependencies.md. A citation of a docs file names one that exists, and a section it
names by title (``docs/design.md, "Start-up"``) or by number (``docs/formats.md, section
5``) is a heading of that file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

# upper-case note names and the shared folder, spelled so this file does not match itself
OUTSIDE = re.compile(
    r"\b(?:"
    + "|".join(f"{name}\\.md" for name in ("DESIGN", "FORMATS", "DEPENDENCIES", "STYLE"))
    + r")|/work/"
    + "shared|\\.\\./"
    + "shared/"
)
# the repository's docs are lower-case names; ``docs/CLAUDE_NOTES.md`` in a test is data
DOC = re.compile(r"(?<![\w/])docs/([a-z][a-z0-9_-]*\.md)")
# ``docs/x.md, "Title"`` or ``docs/x.md ("Title")``, the title possibly over a line break
TITLED = re.compile(r'(?<![\w/])docs/([a-z][a-z0-9_-]*\.md)(?:,\s*|\s*\()"([^"]+)"')
NUMBERED = re.compile(r"(?<![\w/])docs/([a-z][a-z0-9_-]*\.md),?\s+section\s+(\d+)")


def _files() -> list[Path]:
    """The code, tests, benchmarks and docs of the repository (this file aside)."""
    found = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
    for folder in ("src", "tests", "benchmarks"):
        found += sorted(p for p in (REPO / folder).rglob("*") if p.suffix in {".py", ".md"})
    return [p for p in found if p != Path(__file__).resolve()]


FILES = _files()


def _headings(name: str) -> list[str]:
    text = (DOCS / name).read_text(encoding="utf-8")
    return [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]


def _joined(text: str) -> str:
    """Text with line breaks inside comments and docstrings joined to one space."""
    return re.sub(r"\s*\n\s*(?:#\s*)?", " ", text)


def test_nothing_cites_a_document_outside_the_repository() -> None:
    found = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in FILES
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert found == [], "cite docs/*.md instead: " + "; ".join(found)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_a_cited_docs_file_and_its_section_exist(path: Path) -> None:
    text = _joined(path.read_text(encoding="utf-8"))
    missing = sorted({name for name in DOC.findall(text) if not (DOCS / name).is_file()})
    assert missing == [], f"{path.name} cites docs that do not exist: {missing}"
    for name, title in TITLED.findall(text):
        headings = _headings(name)
        assert any(h.startswith(title) for h in headings), f"docs/{name} has no '{title}'"
    for name, number in NUMBERED.findall(text):
        headings = _headings(name)
        assert any(h.startswith(f"{number}.") for h in headings), f"docs/{name} has no {number}."


def test_the_patterns_see_a_citation() -> None:
    assert OUTSIDE.search("see " + "DESIGN" + ".md, section 2")
    assert OUTSIDE.search("/work/" + "shared/real-logs")
    assert not OUTSIDE.search("a shared/real-logs/ folder beside the repository")
    text = _joined('x (docs/design.md, "The\n    # JSON report") and docs/formats.md section 5')
    assert TITLED.findall(text) == [("design.md", "The JSON report")]
    assert NUMBERED.findall(text) == [("formats.md", "5")]
