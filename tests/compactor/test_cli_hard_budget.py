"""``ctxkeep compact --hard-budget`` as a subprocess: the target holds, or one line and 3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxkeep.base.messages import message_text
from tests.compactor.conversations import invalid_reason
from tests.compactor.test_hard_budget import session
from tests.conftest import run_cli


def _write(path: Path, messages: list[Any]) -> str:
    path.write_text(json.dumps(messages))
    return str(path)


def test_the_target_holds_where_the_default_reports_an_excess(tmp_path: Path) -> None:
    file = _write(tmp_path / "s.json", session())
    soft = run_cli("compact", file, "--target-bytes", "1500")
    assert soft.returncode == 0, soft.stderr
    assert "OVER BUDGET" in soft.stderr
    hard = run_cli("compact", file, "--target-bytes", "1500", "--hard-budget")
    assert hard.returncode == 0, hard.stderr
    out = [json.loads(line) for line in hard.stdout.splitlines()]
    assert sum(len(message_text(m).encode()) for m in out) <= 1500
    assert invalid_reason(out) is None
    assert "hard budget" in hard.stderr
    assert "shortened" in hard.stderr


def test_a_budget_the_mandatory_part_cannot_fit_is_one_line_and_exit_3(tmp_path: Path) -> None:
    file = _write(tmp_path / "s.json", session())
    proc = run_cli("compact", file, "--target-bytes", "20", "--hard-budget")
    assert proc.returncode == 3
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("ctxkeep: error: hard budget cannot hold: ")
    assert "fits=False" in lines[0]
