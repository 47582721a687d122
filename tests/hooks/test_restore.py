"""The hook logic in process: waiting for the compaction, bounds, the ledger's second look."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.hooks.judgement import Instruction, UnsupportedItem
from ctxkeep.hooks.protocol import HookInput, session_start_output
from ctxkeep.hooks.restore import Clock, pre_compact, restore_text, session_start
from ctxkeep.log.ledger import LedgerItem, LedgerRecord, append_record, read_ledger
from tests.hooks.harness import CLAUDE_AFTER_COMPACTION_3, CLAUDE_EXAMPLE, lines_of

LOST = 'error messages must always keep the "(line X, column Y)" suffix'


@dataclass
class FakeClock:
    """A clock whose sleep advances time and runs what the test scheduled for then."""

    now: float = 0.0
    on_sleep: list[Path] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)
    sleeps: int = 0

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.sleeps += 1
        if self.sleeps == 3 and self.on_sleep:  # the harness finishes writing meanwhile
            with self.on_sleep[0].open("a", encoding="utf-8") as fh:
                fh.write("".join(self.rest))

    def clock(self) -> Clock:
        return Clock(
            now=lambda: "2026-12-01T00:00:00Z", monotonic=lambda: self.now, sleep=self.sleep
        )


def _context(out: str | None) -> str:
    assert out is not None
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"])


def _hook(transcript: Path, source: str = "compact") -> HookInput:
    return HookInput("SessionStart", "sess-1", str(transcript), "/p", source)


def test_waits_for_the_summary_the_harness_has_not_written_yet(tmp_path: Path) -> None:
    lines = lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(lines[:146]))  # the boundary of compaction 3, no summary
    fake = FakeClock(on_sleep=[transcript], rest=lines[146:])
    ledger = tmp_path / "restores.jsonl"
    out = session_start(_hook(transcript), wait=2.0, clock=fake.clock(), ledger=ledger)
    assert LOST in _context(out)
    assert fake.sleeps == 3
    [record] = read_ledger(ledger)[0]
    assert record.compaction == 3


def test_gives_up_quietly_when_no_new_compaction_comes(tmp_path: Path) -> None:
    lines = lines_of(CLAUDE_EXAMPLE, 60)  # before any compaction
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(lines))
    fake = FakeClock()
    ledger = tmp_path / "restores.jsonl"
    assert session_start(_hook(transcript), wait=1.0, clock=fake.clock(), ledger=ledger) is None
    assert 1.0 <= fake.now < 1.2
    assert not ledger.exists()


def test_waits_for_the_compaction_the_pre_compact_hook_announced(tmp_path: Path) -> None:
    """PreCompact saw two compactions: the third is the one to audit, not the second."""
    lines = lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(lines[:145]))
    ledger = tmp_path / "restores.jsonl"
    pre = pre_compact(
        HookInput("PreCompact", "sess-1", str(transcript), trigger="manual"), ledger=ledger
    )
    assert pre is not None
    fake = FakeClock(on_sleep=[transcript], rest=lines[145:])
    out = session_start(_hook(transcript), wait=2.0, clock=fake.clock(), ledger=ledger)
    assert LOST in _context(out)
    assert [r.compaction for r in read_ledger(ledger)[0]] == [3, 3]


def test_an_instruction_restored_earlier_is_restored_again_when_the_next_summary_drops_it(
    tmp_path: Path,
) -> None:
    """Restored text lives only in the harness's context; the ledger is its memory."""
    lines = lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(lines))
    ledger = tmp_path / "restores.jsonl"
    earlier = (
        "We still support Python 3.8, so no match statements and no list[int] style "
        "annotations evaluated at runtime"
    )
    append_record(
        LedgerRecord(
            "session-start",
            "sess-1",
            str(transcript),
            1,
            "restored",
            (LedgerItem(earlier, "negation", 3),),
        ),
        ledger,
    )
    out = session_start(_hook(transcript), wait=0, ledger=ledger)
    context = _context(out)
    assert f"[transcript line 3] {earlier}" in context
    assert LOST in context


def test_pre_compact_lists_the_sessions_instructions_and_records_them(tmp_path: Path) -> None:
    lines = lines_of(CLAUDE_EXAMPLE, 65)  # before compaction 1
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(lines))
    ledger = tmp_path / "restores.jsonl"
    hook = HookInput("PreCompact", "sess-1", str(transcript), trigger="auto")
    out = pre_compact(hook, ledger=ledger)
    assert out is not None
    assert out.startswith("ctxkeep: when you summarise this conversation")
    assert "Only run tests/test_lexer.py and tests/test_parser.py" in out
    [record] = read_ledger(ledger)[0]
    assert (record.event, record.compaction, record.status) == ("pre-compact", 1, "asked")
    assert record.extra["trigger"] == "auto"
    assert record.items
    for item in record.items:
        assert f"[transcript line {item.line}] {item.text}" in out


def test_pre_compact_keeps_the_newest_when_space_is_short(tmp_path: Path) -> None:
    lines = lines_of(CLAUDE_EXAMPLE, 65)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(lines))
    hook = HookInput("PreCompact", "sess-1", str(transcript))
    whole = pre_compact(hook, ledger=tmp_path / "a.jsonl")
    short = pre_compact(hook, max_bytes=300, ledger=tmp_path / "b.jsonl")
    assert whole is not None
    assert short is not None
    assert len(short.encode()) <= 300 < len(whole.encode())
    listed = [line for line in short.splitlines() if line.startswith("- [")]
    assert listed == [line for line in whole.splitlines() if line.startswith("- [")][-len(listed) :]
    assert "older ones" in short


_texts = st.text(st.characters(codec="utf-8"), min_size=1, max_size=300)


@settings(max_examples=200, deadline=None)
@given(
    lost=st.lists(st.tuples(_texts, st.integers(0, 10**6)), max_size=12),
    invented=st.lists(_texts, max_size=12),
    max_bytes=st.integers(1, 4000),
)
def test_restore_text_always_fits_and_keeps_instructions_verbatim(
    lost: list[tuple[str, int]], invented: list[str], max_bytes: int
) -> None:
    instructions = [Instruction(text, "negation", line) for text, line in lost]
    cautions = [UnsupportedItem(text, "path", "high") for text in invented]
    result = restore_text(
        instructions, cautions, transcript="/t.jsonl", compaction=2, max_bytes=max_bytes
    )
    if result is None:
        return
    text, held, with_caution = result
    assert len(session_start_output(text).encode()) <= max_bytes
    for instruction in instructions[:held]:
        assert instruction.text in text
    assert held <= len(instructions)
    assert with_caution == (bool(cautions) and held == len(instructions) and "Caution" in text)


def test_two_hooks_at_once_restore_once(tmp_path: Path) -> None:
    """Claude Code runs an event's hooks in parallel, and ctxkeep's may be installed twice
    (settings and plugin). Both runs here wait for the same compaction; the ledger's lock
    must let only one restore it (without the lock, both would)."""
    lines = lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(lines[:146]))  # the summary is not written yet
    ledger = tmp_path / "restores.jsonl"
    release = threading.Event()
    sleeping = [threading.Event(), threading.Event()]
    outputs: list[str | None] = [None, None]

    def run(n: int) -> None:
        state = {"now": 0.0}

        def sleep(seconds: float) -> None:
            sleeping[n].set()
            release.wait(timeout=120)
            state["now"] += seconds

        clock = Clock(now=lambda: "t", monotonic=lambda: state["now"], sleep=sleep)
        outputs[n] = session_start(_hook(transcript), wait=2.0, clock=clock, ledger=ledger)

    threads = [threading.Thread(target=run, args=(n,)) for n in (0, 1)]
    threads[0].start()
    assert sleeping[0].wait(timeout=120)  # the first run waits for the summary
    threads[1].start()
    sleeping[1].wait(timeout=1.0)  # without a lock the second run would be waiting too
    with transcript.open("a", encoding="utf-8") as fh:
        fh.write("".join(lines[146:]))
    release.set()
    for thread in threads:
        thread.join(timeout=120)
    assert sum(out is not None for out in outputs) == 1
    assert [r.compaction for r in read_ledger(ledger)[0]] == [3]
