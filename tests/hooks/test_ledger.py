"""The restore ledger: crash-safe appends, tolerant reads, no secrets."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.base.secrets import MASK_PREFIX, mask_secrets
from ctxkeep.log.ledger import (
    LedgerItem,
    LedgerRecord,
    append_record,
    read_ledger,
)


def _record(n: int, session: str = "s1", text: str = "never push to main") -> LedgerRecord:
    return LedgerRecord(
        event="session-start",
        session_id=session,
        transcript="/t.jsonl",
        compaction=n,
        status="restored",
        items=(LedgerItem(text, "negation", 10 + n),),
        time="2026-12-01T00:00:00Z",
    )


def test_a_record_reads_back_as_written(tmp_path: Path) -> None:
    ledger = tmp_path / "restores.jsonl"
    append_record(_record(1), ledger)
    append_record(_record(2, session="s2"), ledger)
    records, problems = read_ledger(ledger)
    assert problems == []
    assert [(r.session_id, r.compaction) for r in records] == [("s1", 1), ("s2", 2)]
    assert records[0].items == (LedgerItem("never push to main", "negation", 11),)
    only, _ = read_ledger(ledger, session_id="s2")
    assert [r.compaction for r in only] == [2]


def test_a_missing_ledger_is_empty(tmp_path: Path) -> None:
    assert read_ledger(tmp_path / "none.jsonl") == ([], [])


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=1, max_value=10_000))
def test_a_torn_write_is_never_read_and_the_next_append_starts_fresh(
    tmp_path_factory: pytest.TempPathFactory, cut: int
) -> None:
    """A writer killed mid-line leaves a prefix of its line; the next record is intact."""
    folder = tmp_path_factory.mktemp("ledger")
    ledger = folder / "restores.jsonl"
    append_record(_record(1), ledger)
    whole = ledger.read_bytes()
    append_record(_record(2), ledger)
    data = ledger.read_bytes()
    torn = data[: len(whole) + cut % (len(data) - len(whole))]  # record 2 cut anywhere
    ledger.write_bytes(torn)
    append_record(_record(3), ledger)
    records, problems = read_ledger(ledger)
    assert [r.compaction for r in records] == [1, 3]
    assert len(problems) == (0 if torn == whole else 1)
    assert ledger.read_bytes().endswith(b"\n")


def test_an_unterminated_tail_is_reported_not_read(tmp_path: Path) -> None:
    ledger = tmp_path / "restores.jsonl"
    append_record(_record(1), ledger)
    line = json.dumps(_record(2).as_json()).encode()
    ledger.write_bytes(ledger.read_bytes() + line)  # complete JSON, but no newline yet
    records, problems = read_ledger(ledger)
    assert [r.compaction for r in records] == [1]
    assert problems == [(2, "unterminated last line (a write that died); skipped")]


def test_foreign_lines_are_skipped_with_their_line(tmp_path: Path) -> None:
    ledger = tmp_path / "restores.jsonl"
    ledger.write_text('{"v": 1, "event": "other"}\n[1, 2]\nnot json\n')
    append_record(_record(4), ledger)
    records, problems = read_ledger(ledger)
    assert [r.compaction for r in records] == [4]
    assert [line for line, _ in problems] == [1, 2, 3]


def _append_many(path: str, worker: int) -> None:
    for n in range(40):
        append_record(_record(n, session=f"w{worker}"), Path(path))


def test_concurrent_writers_never_interleave(tmp_path: Path) -> None:
    ledger = tmp_path / "restores.jsonl"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(str(ledger), w)) for w in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
        assert w.exitcode == 0
    records, problems = read_ledger(ledger)
    assert problems == []
    assert sorted((r.session_id, r.compaction) for r in records) == sorted(
        (f"w{w}", n) for w in range(4) for n in range(40)
    )


def test_secrets_are_masked_in_the_ledger(tmp_path: Path) -> None:
    ledger = tmp_path / "restores.jsonl"
    secret = "sk-proj-A1b2C3d4E5f6G7h8I9j0"
    append_record(_record(1, text=f"always call the API with key {secret}"), ledger)
    raw = ledger.read_text()
    assert secret not in raw
    assert f"{MASK_PREFIX}:openai-api-key" in raw


def test_the_ledger_masks_as_every_report_does(tmp_path: Path) -> None:
    """One masker (ctxkeep.base.secrets): a ledger item reads back as a report would show it."""
    ledger = tmp_path / "restores.jsonl"
    texts = [
        "push with ghp_8fK2mQ9xLr4Tz1Vb7Nc3Wd6Yh0Js5Ep2GaQw only",
        "AWS key AKIAIOSFODNN7EXAMPLE only",
        "set API_KEY=Zx81kQ0pL2vR7tY3 first",
        'password: "correct-horse"',
        "Authorization: Bearer abcdefghijklmnop0123",
    ]
    for n, text in enumerate(texts, 1):
        append_record(_record(n, text=text), ledger)
    records, problems = read_ledger(ledger)
    assert problems == []
    for record, text in zip(records, texts, strict=True):
        (item,) = record.items
        masked, count = mask_secrets(text)
        assert count == 1
        assert item.text == masked
        assert MASK_PREFIX in item.text


def test_ordinary_instructions_are_not_masked(tmp_path: Path) -> None:
    """Words like "token" and "secret" in an instruction are not secrets themselves."""
    ledger = tmp_path / "restores.jsonl"
    texts = (
        "never touch src/token.py",
        "the token limit is 8000, keep the secret santa page as is",
        "do not log the password field",
    )
    for n, text in enumerate(texts, 1):
        append_record(_record(n, text=text), ledger)
    records, _ = read_ledger(ledger)
    assert [r.items[0].text for r in records] == list(texts)
