"""The ledger's read side: the audit reads what ctxkeep's hooks put in context.

The session of tests/hooks/scenario.py, played through ctxkeep's real hooks; the audit,
a subprocess, is run with the ledger they wrote (the default when ``CTXKEEP_HOME`` holds
one) and without (``--no-ledger``), and the reports compared.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import ctxkeep
from ctxkeep.log.ledger import Ledger
from tests.hooks.harness import (
    CODEX_EXAMPLE,
    CODEX_SESSION,
    codex_transcript,
    installed_command,
    ledger_lines,
    lines_of,
    make_home,
    run_as_harness,
    run_ctxkeep,
)
from tests.hooks.scenario import NEVER, ROOT, SCOPE, Scenario, build_scenario


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return build_scenario(tmp_path_factory.mktemp("ledger-audit"))


def _audit(s: Scenario, *args: str) -> dict[str, Any]:
    done = run_ctxkeep(s.home, "audit", "--format", "json", str(s.transcript), *args)
    assert done.returncode in (0, 1), done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    assert data["problems"] == []
    return data


def _findings(data: dict[str, Any], rule: str, compaction: int) -> list[dict[str, Any]]:
    (session,) = data["sessions"]
    return [f for f in session["findings"] if (f["rule_id"], f["compaction"]) == (rule, compaction)]


def test_the_real_hooks_wrote_the_ledger(scenario: Scenario) -> None:
    assert f"[transcript line 1] {SCOPE}" in scenario.restored_1
    assert f"[transcript line 1] {NEVER}" in scenario.restored_1
    assert NEVER in scenario.asked_2
    records = [(r["event"], r["compaction"], r["status"]) for r in ledger_lines(scenario.home)]
    assert records == [
        ("session-start", 1, "restored"),
        ("pre-compact", 2, "asked"),
        ("session-start", 2, "restored"),
    ]
    # The hook judges with the ledger too: its own trace in the transcript does not make
    # it shy of cautioning about what no source holds.
    last = ledger_lines(scenario.home)[-1]
    assert [i["text"] for i in last["items"]] == [SCOPE]
    assert [c["text"] for c in last["cautions"]] == ["src/cache/ttl.py"]


def test_a_summary_repeating_a_restored_instruction_is_grounded(scenario: Scenario) -> None:
    """(a) The restored text is a source of the next summary."""
    with_ledger = [i for f in _findings(_audit(scenario), "CK002", 2) for i in f["items"]]
    alone = [i for f in _findings(_audit(scenario, "--no-ledger"), "CK002", 2) for i in f["items"]]
    assert "src/cache/api.py" in alone
    assert "src/cache/api.py" not in with_ledger
    assert "src/cache/ttl.py" in with_ledger  # what no source holds is still reported


def test_a_restored_instruction_is_judged_at_the_next_compaction(scenario: Scenario) -> None:
    """(b) Restored after compaction 1, in force at compaction 2: dropped again, lost there;
    repeated, kept. Without the ledger, compaction 2 does not judge them at all."""
    (lost,) = _findings(_audit(scenario), "CK003", 2)
    assert lost["items"] == [SCOPE]
    assert lost["restored_by_ctxkeep"] == [SCOPE]
    assert "restored by ctxkeep" in lost["message"]
    assert _findings(_audit(scenario, "--no-ledger"), "CK003", 2) == []
    diff = run_ctxkeep(
        scenario.home, "diff", str(scenario.transcript), "-c", "2", "--format", "json"
    )
    assert diff.returncode == 0, diff.stderr
    rows = {r["text"]: r for r in json.loads(diff.stdout)["constraints"]}
    assert (rows[SCOPE]["survival"], rows[SCOPE]["restored_after"]) == ("lost", 1)
    assert (rows[NEVER]["survival"], rows[NEVER]["restored_after"]) == ("kept", 1)
    assert rows[NEVER]["asked_by_ctxkeep"] is True


def test_ctxkeeps_own_hook_trace_does_not_lower_confidence(scenario: Scenario) -> None:
    """The SessionStart(compact) and PreCompact traces of ctxkeep's hooks hide nothing
    once the ledger is read: the invented path is an error, sure; without the ledger
    the same traces are hooks of unknown output, and the item is only a warning."""
    high = [f for f in _findings(_audit(scenario), "CK002", 2) if f["level"] == "error"]
    assert [f["items"] for f in high] == [["src/cache/ttl.py"]]
    alone = _findings(_audit(scenario, "--no-ledger"), "CK002", 2)
    assert [f["level"] for f in alone] == ["warn"]
    assert "PreCompact:auto, SessionStart:compact" in alone[0]["message"]


def test_prevention_is_measured_per_compaction(scenario: Scenario) -> None:
    (session,) = _audit(scenario)["sessions"]
    hooks = {h["compaction"]: h for h in session["ctxkeep_hooks"]}
    assert hooks[1]["restore"] == "restored"
    assert hooks[1]["restored"] == [SCOPE, NEVER]
    assert hooks[1]["asked"] == []
    assert hooks[1]["asked_kept"] is None
    asked, kept = hooks[2]["asked"], hooks[2]["asked_kept"]
    assert SCOPE in asked
    assert NEVER in asked
    assert "keep the cache size at 512 items" in asked
    assert NEVER in kept
    assert SCOPE not in kept
    assert hooks[2]["restored"] == [SCOPE]  # restored again after compaction 2
    (plain,) = _audit(scenario, "--no-ledger")["sessions"]
    assert plain["ctxkeep_hooks"] == []


def test_text_diff_and_html_reports_say_restored_by_ctxkeep(scenario: Scenario) -> None:
    text = run_ctxkeep(scenario.home, "audit", str(scenario.transcript))
    assert f"- {SCOPE}  (restored by ctxkeep)" in text.stdout
    assert "  ctxkeep hooks (restore ledger):" in text.stdout
    n_asked = len(json.loads(scenario_ledger(scenario))["items"])
    assert f"compaction 2: asked to keep {n_asked} instructions, the summary kept" in text.stdout
    diff = run_ctxkeep(scenario.home, "diff", str(scenario.transcript), "-c", "2")
    assert "restored by ctxkeep after compaction 1" in diff.stdout
    assert "ctxkeep asked the summariser to keep it" in diff.stdout
    assert "ctxkeep hooks (restore ledger): compaction 2: asked to keep" in diff.stdout
    html = run_ctxkeep(scenario.home, "audit", "--format", "html", str(scenario.transcript))
    assert "class='ck-hooks'" in html.stdout
    assert '"restored_after":1' in html.stdout.replace(" ", "")
    plain = run_ctxkeep(scenario.home, "audit", "--no-ledger", str(scenario.transcript))
    assert "restored by ctxkeep" not in plain.stdout
    # The README and docs/hooks.md show this very output.
    lines = text.stdout.splitlines()
    at = lines.index("  ctxkeep hooks (restore ledger):")
    shown = " ".join(" ".join(lines[at : at + 3]).split())
    for doc in (ROOT / "README.md", ROOT / "docs" / "hooks.md"):
        blocks = doc.read_text(encoding="utf-8").split("```")[1::2]
        assert shown in [" ".join(b.split()) for b in blocks], doc


def scenario_ledger(scenario: Scenario) -> str:
    """The pre-compact record, as the ledger holds it."""
    lines = (scenario.home.ctxkeep / "restores.jsonl").read_text(encoding="utf-8").splitlines()
    return next(line for line in lines if '"pre-compact"' in line)


def test_torn_and_foreign_ledger_lines_are_ignored(scenario: Scenario, tmp_path: Path) -> None:
    ledger = tmp_path / "restores.jsonl"
    good = (scenario.home.ctxkeep / "restores.jsonl").read_bytes()
    foreign = b'{"v": 9, "event": "session-start"}\n[1, 2]\n{"v": 1, "event": "pre-compact"}\n'
    ledger.write_bytes(foreign + good + good[: len(good) // 3])  # and a torn last line
    expected = _audit(scenario)
    assert _audit(scenario, "--ledger", str(ledger)) == expected
    diff = run_ctxkeep(
        scenario.home, "diff", str(scenario.transcript), "-c", "2", "--ledger", str(ledger)
    )
    assert diff.returncode == 0
    assert "restored by ctxkeep after compaction 1" in diff.stdout


def test_records_of_another_session_do_not_apply(scenario: Scenario, tmp_path: Path) -> None:
    ledger = tmp_path / "restores.jsonl"
    other = [
        json.dumps({**json.loads(line), "session_id": "another-session"})
        for line in (scenario.home.ctxkeep / "restores.jsonl").read_text().splitlines()
    ]
    ledger.write_text("\n".join(other) + "\n")
    assert _audit(scenario, "--ledger", str(ledger)) == _audit(scenario, "--no-ledger")


def test_the_library_reads_a_ledger_only_when_given_one(scenario: Scenario) -> None:
    """No hidden input: ``ctxkeep.audit`` ignores CTXKEEP_HOME; ``ledger=`` is explicit."""
    path = scenario.home.ctxkeep / "restores.jsonl"
    alone = ctxkeep.audit(scenario.transcript)
    given = ctxkeep.audit(scenario.transcript, ledger=path)
    read = ctxkeep.audit(scenario.transcript, ledger=Ledger.read(path))
    assert alone.sessions[0].hooks == ()
    assert [h.compaction for h in given.sessions[0].hooks] == [1, 2]
    assert given.findings == read.findings != alone.findings
    missing = ctxkeep.audit(scenario.transcript, ledger=path.with_name("none.jsonl"))
    assert missing.findings == alone.findings
    assert [p.reason for p in missing.problems] == [
        f"restore ledger not read: {path.with_name('none.jsonl')}: no such ledger file"
    ]


def test_ledger_options_refuse_clearly(scenario: Scenario, tmp_path: Path) -> None:
    missing = run_ctxkeep(
        scenario.home, "audit", str(scenario.transcript), "--ledger", str(tmp_path / "no.jsonl")
    )
    assert missing.returncode == 2
    assert "--ledger" in missing.stderr
    assert "no such ledger file" in missing.stderr
    both = run_ctxkeep(
        scenario.home, "audit", str(scenario.transcript), "--ledger", str(tmp_path), "--no-ledger"
    )
    assert both.returncode == 2, both.stderr
    for command in ("audit", "sweep", "diff"):
        helped = run_ctxkeep(scenario.home, command, "--help")
        assert "CTXKEEP_HOME/restores.jsonl" in " ".join(helped.stdout.split())


def test_sweep_reads_the_ledger_in_every_worker(scenario: Scenario, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(scenario.transcript, folder / scenario.transcript.name)
    shutil.copy(CODEX_EXAMPLE, folder / CODEX_EXAMPLE.name)
    done = run_ctxkeep(scenario.home, "sweep", "--jobs", "2", "--format", "json", str(folder))
    assert done.returncode == 1, done.stderr
    sessions = {Path(s["path"]).name: s for s in json.loads(done.stdout)["sessions"]}
    assert [h["compaction"] for h in sessions[scenario.transcript.name]["ctxkeep_hooks"]] == [1, 2]
    assert sessions[CODEX_EXAMPLE.name]["ctxkeep_hooks"] == []


# ------------------------------------------------------------------------------ Codex

CODEX_DROPPED = (
    "Retry only idempotent requests (GET, HEAD) and only on 429, 502, 503, 504 or a network error"
)
CODEX_KEPT = "Do not add new dependencies: no go-retryablehttp, no cenkalti/backoff"


def test_codex_restore_is_judged_at_the_next_compaction(tmp_path: Path) -> None:
    """The Codex example: the real hook restores compaction 2's three losses; a third
    compaction (a ``compacted`` record as Codex writes it) keeps one of them and drops
    another, which is lost again there; matched by Codex's session id."""
    home = make_home(tmp_path)
    assert run_ctxkeep(home, "hook", "install", "--harness", "codex").returncode == 0
    command = installed_command(home.root / ".codex" / "hooks.json", "SessionStart")
    lines = lines_of(CODEX_EXAMPLE, 75)
    transcript = codex_transcript(home, lines)
    payload = {
        "session_id": CODEX_SESSION,
        "transcript_path": str(transcript),
        "cwd": str(home.project),
        "hook_event_name": "SessionStart",
        "source": "compact",
    }
    assert CODEX_DROPPED in run_as_harness(home, command, payload).stdout
    rest = lines_of(CODEX_EXAMPLE, 10_000)[75:]
    third = {
        "timestamp": "2026-11-18T14:20:00.000Z",
        "type": "compacted",
        "payload": {
            "message": "Summary: client/retry.go retries with capped backoff; the public API of "
            f"package client stays unchanged. {CODEX_KEPT}."
        },
    }
    transcript.write_text("".join(lines + rest) + json.dumps(third) + "\n", encoding="utf-8")
    done = run_ctxkeep(home, "audit", "--format", "json", str(transcript))
    (session,) = json.loads(done.stdout)["sessions"]
    (lost,) = [f for f in session["findings"] if (f["rule_id"], f["compaction"]) == ("CK003", 3)]
    assert CODEX_DROPPED in lost["items"]
    assert CODEX_DROPPED in lost["restored_by_ctxkeep"]
    assert CODEX_KEPT not in lost["items"]
    diff = run_ctxkeep(home, "diff", str(transcript), "-c", "3", "--format", "json")
    rows = {r["text"]: r for r in json.loads(diff.stdout)["constraints"]}
    assert rows[CODEX_KEPT]["survival"] != "lost"
    assert rows[CODEX_KEPT]["restored_after"] == 2
