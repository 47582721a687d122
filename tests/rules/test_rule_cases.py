"""Data-driven rule tests: one JSON file of cases per rule in ``cases/``.

Each case is a small ctxkeep event log (shorthand: tests/rules/build.py; with ``"format":
"claude-code"`` the same shorthand written as a real Claude Code log), or a ``"fixture"``
of tests/fixtures/ (a harness's own format the shorthand does not write, such as Codex's
encrypted compaction), the exact findings its rule must report (rule, level, compaction,
items, and the message where a case gives one), the items that must not be flagged, and
optionally the session's constraint and compaction counts. The rule runs alone
(``select``), so a case states everything that rule says about the log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxkeep import audit
from tests.rules.build import write_claude_code_log, write_log

CASES_DIR = Path(__file__).parent / "cases"
FIXTURES = Path(__file__).parents[1] / "fixtures"


def _cases() -> list[Any]:
    params = []
    for path in sorted(CASES_DIR.glob("CK*.json")):
        rule_id = path.stem
        for case in json.loads(path.read_text(encoding="utf-8")):
            params.append(pytest.param(rule_id, case, id=f"{rule_id}: {case['name']}"))
    return params


def test_every_rule_has_cases() -> None:
    from ctxkeep.rules import RULES

    assert sorted(p.stem for p in CASES_DIR.glob("CK*.json")) == [r.id for r in RULES]


@pytest.mark.parametrize(("rule_id", "case"), _cases())
def test_rule_case(rule_id: str, case: dict[str, Any], tmp_path: Path) -> None:
    if "fixture" in case:
        log = FIXTURES / case["fixture"]
    elif case.get("format") == "claude-code":
        log = write_claude_code_log(
            tmp_path / "session.jsonl", case["log"], mid_session=case.get("mid_session", False)
        )
    else:
        log = write_log(tmp_path / "session.jsonl", case["log"])
    result = audit(log, select=[rule_id])
    assert len(result.sessions) == 1, result.problems
    session = result.sessions[0]
    got = [
        {
            "rule": f.rule_id,
            "level": f.level.value,
            "compaction": f.compaction,
            "items": list(f.items),
            "message": f.message,
        }
        for f in session.findings
    ]
    for found, expected in zip(got, case["flagged"], strict=False):
        if "message" not in expected:
            del found["message"]
    assert got == case["flagged"]
    flagged_items = {item for f in session.findings for item in f.items}
    for item in case.get("not_flagged", []):
        assert item not in flagged_items
    if "constraints" in case:
        expected = case["constraints"]
        assert (session.constraints_total, session.constraints_kept) == (
            expected["total"],
            expected["kept"],
        )
    if "compactions" in case:
        c = session.compactions
        assert {
            "started": c.started,
            "summarised": c.summarised,
            "failed": c.failed,
            "noop": c.noop,
        } == case["compactions"]
