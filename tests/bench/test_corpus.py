"""The session generator: deterministic, exactly sized, valid, and its plants are real."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxkeep.base.messages import message_prose, message_text
from ctxkeep.bench.corpus import (
    CORPORA,
    SessionSpec,
    corpus,
    generate_session,
    harness_summary,
    session_bytes,
)
from ctxkeep.bench.logs import log_sessions, transcript_lines, write_log
from ctxkeep.extract import extract_constraints, extract_identifiers
from ctxkeep.log.model import CompactionStatus
from ctxkeep.log.reader import read_session
from ctxkeep.verify.validity import sequence_problems

SPECS = [SessionSpec(seed, lang, n) for seed, n in ((1, 50), (5, 333)) for lang in ("en", "zh")]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_same_seed_gives_the_same_bytes(spec: SessionSpec) -> None:
    assert session_bytes(generate_session(spec)) == session_bytes(generate_session(spec))


def test_different_seeds_give_different_sessions() -> None:
    a = generate_session(SessionSpec(1, "en", 200))
    b = generate_session(SessionSpec(2, "en", 200))
    assert session_bytes(a) != session_bytes(b)


@pytest.mark.parametrize("n", [12, 13, 50, 997, 2000])
def test_sessions_have_exactly_the_requested_length_and_valid_tool_pairs(n: int) -> None:
    for lang in ("en", "zh"):
        session = generate_session(SessionSpec(3, lang, n))
        assert len(session.messages) == n
        assert sequence_problems(list(session.messages), "openai") == ()


def test_too_short_a_session_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 12"):
        generate_session(SessionSpec(1, "en", 11))


def test_unknown_corpus_names_the_choices() -> None:
    with pytest.raises(KeyError, match="small"):
        corpus("huge")


def test_the_corpora_span_50_to_2000_messages_in_both_languages() -> None:
    sizes = {s.messages for s in CORPORA["large"]}
    assert sizes == {s.messages for s in CORPORA["xl"]}
    assert min(sizes) == 50
    assert max(sizes) == 2000
    assert {s.language for s in CORPORA["small"]} == {"en", "zh"}


@pytest.mark.parametrize("spec", CORPORA["small"], ids=lambda s: s.name)
def test_planted_constraints_are_found_by_ctxkeeps_extractor(spec: SessionSpec) -> None:
    session = generate_session(spec)
    assert len(session.constraints) >= 5
    for planted in session.constraints:
        text = message_prose(session.messages[planted.message_index])
        start = text.index(planted.text)
        end = start + len(planted.text)
        found = [c for c in extract_constraints(text) if c.start < end and start < c.end]
        assert found, f"extractor missed {planted.text!r}"
        assert planted.entity in planted.text


def test_constraints_are_stated_early() -> None:
    session = generate_session(SessionSpec(4, "en", 2000))
    assert max(c.message_index for c in session.constraints) < 2000 * 0.1


@pytest.mark.parametrize("spec", CORPORA["small"], ids=lambda s: s.name)
def test_planted_identifiers_come_from_tool_output_and_are_extracted(spec: SessionSpec) -> None:
    session = generate_session(spec)
    kinds = {i.kind for i in session.identifiers}
    assert {"path", "symbol", "version", "port"} <= kinds
    missed = []
    for ident in session.identifiers:
        holder = session.messages[ident.message_index]
        assert holder["role"] == "tool"
        assert ident.text in message_text(holder)
        found = [i.text for i in extract_identifiers(message_text(holder))]
        if not any(ident.text in f or f in ident.text for f in found):
            missed.append(ident)
    # A bare class name (``TokenStream``) is not an identifier every extractor must flag;
    # paths, versions and ports are.
    assert [m for m in missed if m.kind in ("path", "version", "port")] == []


@pytest.mark.parametrize("log_format", ["ctxkeep", "claude-code"])
def test_written_logs_read_back_with_one_compaction_per_session(
    tmp_path: Path, log_format: str
) -> None:
    path = tmp_path / "log.jsonl"
    written, sessions = write_log(path, 300_000, log_format=log_format)  # type: ignore[arg-type]
    assert written == path.stat().st_size >= 300_000
    session = read_session(path)
    assert session.format == log_format
    assert session.problems == ()
    assert len(session.compactions) == sessions >= 1
    assert all(c.status is CompactionStatus.SUMMARISED for c in session.compactions)
    assert all(c.summary and c.shadowed_seqs for c in session.compactions)


def test_written_logs_are_the_same_bytes_on_every_run(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_log(a, 200_000)
    write_log(b, 200_000)
    assert a.read_bytes() == b.read_bytes()


def test_harness_summary_keeps_some_constraints_and_invents_a_path() -> None:
    first = next(log_sessions())
    summary = harness_summary(first)
    assert summary.startswith("This session is being continued")
    assert "legacy_shim.py" in summary
    assert harness_summary(first) == summary
    assert all(line["text"] for line in transcript_lines(first))
