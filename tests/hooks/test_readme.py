"""The README and docs/hooks.md show what the hook really prints on the bundled example."""

from __future__ import annotations

import json
from pathlib import Path

from ctxkeep.hooks.protocol import HookInput
from ctxkeep.hooks.restore import pre_compact, session_start
from tests.hooks.harness import CODEX_AFTER_COMPACTION_2, CODEX_EXAMPLE, lines_of

ROOT = Path(__file__).resolve().parents[2]


def _blocks(path: Path) -> list[str]:
    """The fenced blocks of a Markdown file that have no language tag."""
    parts = path.read_text(encoding="utf-8").split("```")
    return [p.removeprefix("\n") for p in parts[1::2] if p.startswith("\n")]


def _words(text: str) -> str:
    return " ".join(text.split())


def _example(tmp_path: Path) -> Path:
    transcript = tmp_path / "rollout.jsonl"
    transcript.write_text("".join(lines_of(CODEX_EXAMPLE, CODEX_AFTER_COMPACTION_2)))
    return transcript


def test_the_readme_shows_the_real_restore(tmp_path: Path) -> None:
    transcript = _example(tmp_path)
    out = session_start(
        HookInput("SessionStart", "s", str(transcript), source="compact"),
        ledger=tmp_path / "restores.jsonl",
    )
    assert out is not None
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    for doc in (ROOT / "README.md", ROOT / "docs" / "hooks.md"):
        assert _words(context) in map(_words, _blocks(doc)), doc


def test_docs_show_the_real_directive_start(tmp_path: Path) -> None:
    transcript = _example(tmp_path)
    out = pre_compact(HookInput("PreCompact", "s", str(transcript)), ledger=tmp_path / "l.jsonl")
    assert out is not None
    shown = [b for b in _blocks(ROOT / "docs" / "hooks.md") if "when you summarise" in b]
    assert len(shown) == 1
    assert _words(out).startswith(_words(shown[0]))
