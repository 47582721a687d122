"""Which hook runs lower CK002's confidence: only those whose output could have reached
the model before the summary was written (src/ctxkeep/rules/hook_runs.py).

The real Claude Code logs of benchmarks/real-logs/ hold the cases each filter names;
real-format logs written by tests/rules/build.py hold the windows.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from ctxkeep import audit, read_session
from ctxkeep.base.findings import Confidence
from ctxkeep.log.ledger import LedgerItem, LedgerRecord, SessionLedger
from ctxkeep.log.model import HookRun, Session
from ctxkeep.rules.context import RuleContext
from ctxkeep.rules.hook_runs import (
    could_reach_the_model,
    is_ctxkeep_hook,
    is_internal_callback,
    is_stop_hook_the_user_answered,
)
from tests.rules.build import Step, write_claude_code_log

REAL = Path(__file__).resolve().parents[2] / "benchmarks" / "real-logs"
REAL_CLAUDE = sorted(REAL.glob("claude-code-*.jsonl.gz"))


@pytest.fixture(scope="module")
def real_sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Session]:
    folder = tmp_path_factory.mktemp("real")
    sessions = {}
    for source in REAL_CLAUDE:
        target = folder / source.name.removesuffix(".gz")
        target.write_bytes(gzip.decompress(source.read_bytes()))
        sessions[target.stem] = read_session(target)
    return sessions


def test_the_adapter_keeps_each_hook_run_with_its_place(real_sessions: dict[str, Session]) -> None:
    session = real_sessions["claude-code-ad_ff0201aecb_0"]
    named = [(r.line, r.name) for r in session.hook_runs if r.command != "callback"]
    assert named[:2] == [(2, "SessionStart:startup"), (52, "Stop")]
    first, second = session.compactions
    compact_runs = [r for r in session.hook_runs if r.name == "SessionStart:compact"]
    # each fires after its compaction's summary: after the boundary, before the next
    assert [first.end_seq, second.end_seq] == [r.seq for r in compact_runs]
    assert all(r.event == "SessionStart" and "entire" in r.command for r in compact_runs)


def test_real_callbacks_are_claude_codes_own(real_sessions: dict[str, Session]) -> None:
    runs = [r for s in real_sessions.values() for r in s.hook_runs]
    callbacks = [r for r in runs if is_internal_callback(r)]
    assert len(callbacks) == 268
    assert {r.event for r in callbacks} == {"PostToolUse"}
    assert not any(is_internal_callback(r) for r in runs if r.command.startswith("go run"))


def test_every_real_stop_hook_was_answered_by_the_user(real_sessions: dict[str, Session]) -> None:
    stops = [(s, r) for s in real_sessions.values() for r in s.hook_runs if r.event == "Stop"]
    assert len(stops) == 19
    assert all(is_stop_hook_the_user_answered(r, s) for s, r in stops)


def test_real_windows_keep_the_hooks_that_could_reach_the_summary(
    real_sessions: dict[str, Session],
) -> None:
    """Every real compaction still ran a hook of unknown output in its window (a
    SessionStart hook, or PostToolUse with a command): the reason stays, narrowed."""
    seen: dict[tuple[str, int], set[str]] = {}
    for name, session in real_sessions.items():
        ctx = RuleContext(session)
        for compaction in session.compactions:
            hooks = ctx.view(compaction).unrecorded_hooks
            seen[name, compaction.index] = {h.name for h in hooks}
            assert not any(h.command == "callback" or h.event == "Stop" for h in hooks)
    assert seen["claude-code-ad_ff0201aecb_0", 1] == {"SessionStart:startup"}
    # compaction 2 does not see the startup hook (compaction 1 replaced it) but sees the
    # SessionStart(compact) that ran right after compaction 1
    assert seen["claude-code-ad_ff0201aecb_0", 2] == {"SessionStart:compact"}
    assert seen["claude-code-b8_659b3a4dd4_0", 2] == {
        "SessionStart:compact",
        "PostToolUse:TodoWrite",
    }
    assert seen["claude-code-a5_d8ec9bae67_0", 1] == set()  # no hook at all


START = "/opt/ctxkeep/bin/ctxkeep hook session-start"
PLUGIN = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/run_ctxkeep.py" hook session-start'


def test_ctxkeeps_own_hook_commands_are_recognised() -> None:
    for command in (START, PLUGIN, "/usr/bin/python3 -m ctxkeep hook pre-compact"):
        assert is_ctxkeep_hook(HookRun(1, 1, "SessionStart", "SessionStart:compact", command))
    for command in ("ctxkeep audit x.jsonl", "go run main.go hooks claude-code session-start"):
        assert not is_ctxkeep_hook(HookRun(1, 1, "SessionStart", "SessionStart:compact", command))


def _log(tmp_path: Path, steps: list[Step]) -> Session:
    return read_session(write_claude_code_log(tmp_path / "s.jsonl", steps))


FIRST: list[Step] = [
    ["user", "Fix the parser in src/parse.py."],
    ["assistant", "Fixing src/parse.py."],
    ["compact", {"summary": "Fixed src/parse.py."}],
]
SECOND: list[Step] = [
    ["user", "Now the lexer."],
    ["assistant", "Done."],
    ["compact", {"summary": "The lexer lives in src/invented_lexer.py."}],
]


def _levels(session: Session) -> dict[int, Confidence]:
    found = audit(session, select=["CK002"]).findings
    return {f.compaction: f.confidence for f in found if f.compaction is not None}


def test_a_session_start_compact_hook_counts_for_the_next_compaction_only(tmp_path: Path) -> None:
    hook: Step = ["hook", "SessionStart", "SessionStart:compact", "bash notes.sh"]
    plain = _log(tmp_path, [*FIRST, *SECOND])
    assert _levels(plain) == {2: Confidence.HIGH}
    hooked = _log(tmp_path, [*FIRST, hook, *SECOND])
    assert _levels(hooked) == {2: Confidence.LOW}
    after_last = _log(tmp_path, [*FIRST, *SECOND, hook])
    assert _levels(after_last) == {2: Confidence.HIGH}
    before_first = _log(tmp_path, [hook, *FIRST, *SECOND])  # replaced by compaction 1
    assert _levels(before_first) == {2: Confidence.HIGH}


def test_a_stop_hook_counts_only_when_the_model_went_on(tmp_path: Path) -> None:
    stop: Step = ["hook", "Stop", "Stop", "bash check.sh"]
    answered = _log(tmp_path, [*FIRST, ["assistant", "Next?"], stop, *SECOND])
    assert _levels(answered) == {2: Confidence.HIGH}
    went_on = [*FIRST, ["assistant", "Next?"], stop, ["assistant", "Continuing."], *SECOND]
    assert _levels(_log(tmp_path, went_on)) == {2: Confidence.LOW}


def test_a_callback_never_counts_and_a_command_always_does(tmp_path: Path) -> None:
    callback: Step = ["hook", "PostToolUse", "PostToolUse:Read", "callback"]
    assert _levels(_log(tmp_path, [*FIRST, callback, *SECOND])) == {2: Confidence.HIGH}
    lint: Step = ["hook", "PostToolUse", "PostToolUse:Edit", "ruff check --fix"]
    assert _levels(_log(tmp_path, [*FIRST, lint, *SECOND])) == {2: Confidence.LOW}


def test_ctxkeeps_hook_counts_unless_the_ledger_holds_the_session(tmp_path: Path) -> None:
    ours: Step = ["hook", "SessionStart", "SessionStart:compact", START]
    session = _log(tmp_path, [*FIRST, ours, *SECOND])
    (run,) = session.hook_runs
    assert could_reach_the_model(run, session, ledger_read=False)
    assert not could_reach_the_model(run, session, ledger_read=True)
    record = LedgerRecord(
        "session-start", session.session_id or "", session.path, 1, "nothing-lost"
    )
    with_ledger = RuleContext(session, SessionLedger((record,)))
    assert with_ledger.view(session.compactions[1]).unrecorded_hooks == ()
    empty = RuleContext(session, SessionLedger())  # a ledger, but not this session's
    assert empty.view(session.compactions[1]).unrecorded_hooks == (run,)
    unknown = RuleContext(session)
    assert unknown.view(session.compactions[1]).unrecorded_hooks == (run,)


def test_restored_text_grounds_the_next_summary_only(tmp_path: Path) -> None:
    """What session-start printed after compaction 1 is a source of summary 2, not 1 or 3."""
    third: list[Step] = [["user", "Go on."], ["compact", {"summary": "Keep src/legacy.py."}]]
    session = _log(tmp_path, [*FIRST, *SECOND, *third])
    restored = LedgerItem("never touch src/invented_lexer.py", "prohibition", 1)
    record = LedgerRecord(
        "session-start", session.session_id or "", session.path, 1, "restored", (restored,)
    )
    ctx = RuleContext(session, SessionLedger((record,)))
    texts = {c.index: ctx.view(c).ledger_texts for c in session.compactions}
    assert texts == {1: [], 2: ["- [transcript line 1] never touch src/invented_lexer.py"], 3: []}
