"""Standing instructions followed across compactions, read where user text really is."""

from __future__ import annotations

import json
from pathlib import Path

from ctxkeep.engine import diff
from ctxkeep.extract import Survival
from ctxkeep.log import read_session
from ctxkeep.report.diff import diff_to_dict, render_diff_text
from ctxkeep.rules.context import Origin, RuleContext
from tests.rules.build import write_log

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"
TINYPARSE = EXAMPLES / "claude-code" / "tinyparse-three-compactions.jsonl"


def test_compact_arguments_are_judged_against_their_summary_and_omissions_are_not() -> None:
    ctx = RuleContext(read_session(str(TINYPARSE)))
    third = ctx.judged(3)
    compact = [j for j in third if j.source.origin is Origin.COMPACT]
    assert [j.constraint.text for j in compact] == [
        "keep the exact test commands and the list of files we changed"
    ]
    assert compact[0].kept
    # "drop the precedence debugging details" is followed by leaving them out
    assert not any("drop" in j.constraint.text for j in third)
    # /compact arguments steer that summary only: never carried to a later one
    assert all(j.source.origin is not Origin.COMPACT for j in ctx.judged(3) if j.inherited)


def test_decay_is_reported_where_it_happens_with_what_was_inherited(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "s.jsonl",
        [
            ["user", "Never run the fuzz suite. Only edit src/lexer.py."],
            ["compact", {"summary": "Rules: never run the fuzz suite; only edit src/lexer.py."}],
            ["user", "Please use ruff instead of flake8."],
            ["compact", {"summary": "Only src/lexer.py is edited. We use ruff instead of flake8."}],
        ],
    )
    ctx = RuleContext(read_session(str(log)))
    first = {j.constraint.text: j for j in ctx.judged(1)}
    assert all(j.kept and not j.inherited for j in first.values())
    second = {j.constraint.text: j for j in ctx.judged(2)}
    assert second["Never run the fuzz suite"].survival is Survival.LOST
    assert second["Never run the fuzz suite"].inherited_from == 1
    assert second["Only edit src/lexer.py"].kept
    assert not second["Please use ruff instead of flake8"].inherited
    # in the order they were given: the inherited ones first
    assert [j.constraint.text for j in ctx.judged(2)][-1] == "Please use ruff instead of flake8"
    assert ctx.constraint_counts() == (3, 2)

    d = diff(log, 2)
    rows = {r["text"]: r for r in diff_to_dict(d)["constraints"]}
    assert rows["Never run the fuzz suite"]["inherited_from"] == 1
    assert rows["Never run the fuzz suite"]["carried_as"] is None
    assert rows["Only edit src/lexer.py"]["carried_as"] == "Only src/lexer.py is edited"
    assert rows["Please use ruff instead of flake8"]["origin"] == "message"
    text = render_diff_text(d)
    assert "constraints (3, 2 inherited from earlier summaries):" in text
    assert "inherited: replaced by compaction 1" in text
    assert "as: Only src/lexer.py is edited" in text
    json.dumps(diff_to_dict(d))


def test_an_instruction_still_in_context_is_not_judged(tmp_path: Path) -> None:
    # OpenHands keeps the first messages beside the summary: they are not lost there
    log = write_log(
        tmp_path / "s.jsonl",
        [
            ["user", "Never log the API key."],
            ["assistant", "OK."],
            ["compact", {"summary": "Nothing about keys.", "shadowed": [[2, 2]]}],
        ],
    )
    ctx = RuleContext(read_session(str(log)))
    assert ctx.judged(1) == ()


def test_rejection_feedback_keeps_its_place_in_the_tool_result(tmp_path: Path) -> None:
    feedback = "keep the retry count in a module constant"
    result = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected. "
        f"To tell you how to proceed, the user said:\n{feedback}"
    )
    log = write_log(
        tmp_path / "s.jsonl",
        [
            ["call", "t1", "Edit", {"file_path": "client.py"}],
            ["result", "t1", result],
            ["compact", {"summary": "Edited the client."}],
        ],
    )
    (judged,) = RuleContext(read_session(str(log))).judged(1)
    assert judged.source.origin is Origin.REJECTION
    at = judged.source.offset + judged.constraint.start
    assert judged.event is not None
    assert judged.event.text[at : at + len(feedback)] == feedback
