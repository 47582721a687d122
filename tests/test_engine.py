"""The engine: counts, peak usage, ordering, fingerprints, selection, config, baseline,
sweep and diff, on real ctxkeep event logs written into tmp_path."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ctxkeep import Severity, audit, read_session
from ctxkeep.base.findings import Confidence, Finding
from ctxkeep.baseline import BaselineError, load_baseline, write_baseline
from ctxkeep.config import AuditConfig, ConfigError, find_config
from ctxkeep.engine import NoSuchCompactionError, diff, sweep
from ctxkeep.extract import Survival
from ctxkeep.log.model import HookRun
from ctxkeep.rules import RULES, UnknownRuleError, select_rules
from ctxkeep.rules.base import Rule
from tests.rules.build import write_log


def test_seed_counting_case_291_started_4_summarised_287_failed(tmp_path: Path) -> None:
    steps: list[list[object]] = [["user", "Keep going with the migration."]]
    summaries = 0
    for i in range(291):
        if i % 72 == 71 and summaries < 4:
            summaries += 1
            steps.append(["compact", {"summary": f"Migration in progress, step {summaries}."}])
        else:
            steps.append(["compact", {"error": "API Error: 529 overloaded_error"}])
        steps.append(["user", "continue"])
    log = write_log(tmp_path / "seed.jsonl", steps)
    session = audit(log).sessions[0]
    c = session.compactions
    assert (c.started, c.summarised, c.failed, c.noop) == (291, 4, 287, 0)
    failed = [f for f in session.findings if f.rule_id == "CK008"]
    assert [f.message for f in failed] == ["291 compactions started: 4 summarised, 287 failed"]
    assert failed[0].items == ("API Error: 529 overloaded_error",)
    assert dict(session.by_trigger)["auto"] == c


def test_peak_context_and_triggers(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "s.jsonl",
        [
            ["user", "hello"],
            ["usage", 150_000, 200_000],
            ["compact", {"summary": "hello", "trigger": "auto", "tokens_before": 170_000}],
            ["usage", 20_000],
            ["compact", {"error": "boom", "trigger": "manual"}],
            ["compact", {"summary": "x", "trigger": "weird"}],
        ],
    )
    s = audit(log, select=["CK008"]).sessions[0]
    assert (s.peak.tokens, s.peak.window, s.peak.percent) == (170_000, 200_000, 85.0)
    by = {t: (c.started, c.summarised, c.failed) for t, c in s.by_trigger}
    assert by == {
        "auto": (1, 1, 0),
        "manual": (1, 0, 1),
        "reactive": (0, 0, 0),
        "unknown": (1, 1, 0),
    }


def test_findings_sorted_log_health_first_and_fingerprints_ignore_lines(tmp_path: Path) -> None:
    steps: list[list[object]] = [
        ["user", "Never push to main. Do not touch src/db.py."],
        ["call", "t1", "Bash", {"command": "ls"}],
        ["compact", {"summary": "We edited src/other.py as mentioned above."}],
    ]
    first = audit(write_log(tmp_path / "a.jsonl", steps)).sessions[0]
    ids = [f.rule_id for f in first.findings]
    assert ids == sorted(ids)
    assert ids[0] == "CK001"
    # The same log one line lower (a header line without a session id) and at the same
    # path: lines move, fingerprints do not.
    header = {"harness": "test"}
    moved = audit(write_log(tmp_path / "a.jsonl", steps, header=header), select=None).sessions[0]
    assert [f.lines for f in moved.findings] != [f.lines for f in first.findings]
    assert [f.fingerprint for f in moved.findings] == [f.fingerprint for f in first.findings]
    assert len({f.fingerprint for f in first.findings}) == len(first.findings)


def test_fingerprint_depends_on_items_and_path_not_lines() -> None:
    base = Finding("CK003", "constraint-lost", Severity.WARN, "m", "a.jsonl", 1, (3,), (4,), ("x",))
    assert (
        base.fingerprint
        == dataclasses.replace(base, lines=(9,), seqs=(8,), fingerprint="").fingerprint
    )
    assert base.fingerprint != dataclasses.replace(base, items=("y",), fingerprint="").fingerprint
    assert base.fingerprint != dataclasses.replace(base, path="b.jsonl", fingerprint="").fingerprint
    # the path as typed is not part of it: the file name stands for the session
    moved = dataclasses.replace(base, path="/abs/logs/a.jsonl", fingerprint="")
    assert base.fingerprint == moved.fingerprint
    assert len(base.fingerprint) == 16


def test_rule_selection_by_id_name_prefix_and_unknown() -> None:
    assert [r.id for r in select_rules(["constraint-lost", "CK001"])] == ["CK001", "CK003"]
    assert [r.id for r in select_rules(["CK00"], ["CK002", "no-summary"])] == [
        "CK001",
        "CK003",
        "CK004",
        "CK005",
        "CK006",
        "CK007",
        "CK008",
    ]
    assert len(select_rules(["ALL"])) == len(RULES)
    with pytest.raises(UnknownRuleError, match="CK999"):
        select_rules(["CK999"])


def test_config_found_upward_ctxkeep_toml_wins_and_bad_keys_are_located(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ctxkeep]\nignore = ["CK009"]\nfail-on = "error"\n', encoding="utf-8"
    )
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    cfg = find_config(deep)
    assert cfg.ignore == ("CK009",)
    assert cfg.fail_on is Severity.ERROR
    assert cfg.source == tmp_path / "pyproject.toml"
    (tmp_path / "a" / "ctxkeep.toml").write_text('select = ["CK003"]\n', encoding="utf-8")
    assert find_config(deep).select == ("CK003",)
    (tmp_path / "a" / "ctxkeep.toml").write_text('selct = ["CK003"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ctxkeep\.toml: unknown key selct"):
        find_config(deep)
    (tmp_path / "a" / "ctxkeep.toml").write_text("select = [\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        find_config(deep)


def test_config_selection_and_explicit_options_combine(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "s.jsonl",
        [["call", "t1", "Bash", {}], ["compact", {"summary": "   "}]],
    )
    cfg = AuditConfig(ignore=("CK001",))
    assert {f.rule_id for f in audit(log, config=cfg).findings} == {"CK009"}
    assert {f.rule_id for f in audit(log, config=cfg, ignore=["CK009"]).findings} == set()
    assert {
        f.rule_id
        for f in audit(log, config=AuditConfig(select=("CK009",)), select=["CK001"]).findings
    } == {"CK001"}


def test_baseline_is_a_set_difference_of_fingerprints(tmp_path: Path) -> None:
    steps: list[list[object]] = [
        ["user", "Do not touch src/db.py."],
        ["compact", {"summary": "We are working on the API."}],
    ]
    log = write_log(tmp_path / "s.jsonl", steps)
    first = audit(log)
    assert first.findings
    base = tmp_path / "baseline.json"
    assert write_baseline(base, first.findings) == len({f.fingerprint for f in first.findings})
    prints = load_baseline(base)
    again = audit(log, baseline=prints)
    assert again.findings == ()
    assert again.sessions[0].baselined == len(first.findings)
    # A new finding is reported; the old ones stay baselined.
    write_log(tmp_path / "s.jsonl", [*steps, ["call", "t1", "Bash", {}]])
    new = audit(log, baseline=prints)
    assert [f.rule_id for f in new.findings] == ["CK001"]
    (tmp_path / "bad.json").write_text("[1]", encoding="utf-8")
    with pytest.raises(BaselineError, match=r"bad\.json"):
        load_baseline(tmp_path / "bad.json")


def test_hallucination_is_low_confidence_when_hooks_were_not_recorded(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "s.jsonl",
        [["user", "Fix the bug."], ["compact", {"summary": "Fixed it in src/invented.py."}]],
    )
    session = read_session(log)
    sure = audit(session, select=["CK002"]).findings
    assert [f.confidence for f in sure] == [Confidence.HIGH]
    startup = HookRun(0, 1, "SessionStart", "SessionStart:startup", "cat .claude/notes.md")
    unsure = audit(dataclasses.replace(session, hook_runs=(startup,)), select=["CK002"]).findings
    assert [f.confidence for f in unsure] == [Confidence.LOW]
    assert "SessionStart:startup hook ran before it" in unsure[0].message
    assert unsure[0].items == sure[0].items == ("src/invented.py",)


def test_unreadable_sources_are_problems_not_sessions(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text('{"hello": 1}', encoding="utf-8")
    result = audit([tmp_path / "notes.json", tmp_path / "missing.jsonl"])
    assert result.sessions == ()
    assert not result.readable
    assert [p.path for p in result.problems] == [
        str(tmp_path / "notes.json"),
        str(tmp_path / "missing.jsonl"),
    ]


def _damaged_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    (folder / "sub").mkdir(parents=True)
    write_log(
        folder / "clean.jsonl", [["user", "hi"], ["compact", {"summary": "The user said hi."}]]
    )
    write_log(
        folder / "sub" / "worst.jsonl",
        [
            ["user", "Never push to main. Do not touch src/db.py. Only edit docs/."],
            ["compact", {"summary": "Working on it."}],
        ],
    )
    write_log(
        folder / "warned.jsonl",
        [["user", "hi"], ["compact", {"error": "HTTP 529"}]],
    )
    return folder


def test_sweep_ranks_by_damage_and_processes_agree(tmp_path: Path) -> None:
    folder = _damaged_folder(tmp_path)
    done: list[str] = []
    serial = sweep([folder], jobs=1, on_done=lambda s: done.append(s.path if s else ""))
    parallel = sweep([folder], jobs=2)
    assert [s.path for s in serial.sessions] == [
        str(folder / "sub" / "worst.jsonl"),
        str(folder / "warned.jsonl"),
        str(folder / "clean.jsonl"),
    ]
    assert serial.sessions == parallel.sessions
    assert sorted(done) == sorted(s.path for s in serial.sessions)
    totals = dict(serial.by_trigger)["auto"]
    assert (totals.started, totals.summarised, totals.failed) == (3, 2, 1)


def test_diff_shows_each_constraint_and_invented_item(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "s.jsonl",
        [
            ["user", "Hello there."],
            ["user", "Never push to the main branch.\nDo not touch src/db.py."],
            ["call", "t1", "Read", {"path": "src/app.py"}],
            ["result", "t1", "def main(): ..."],
            [
                "compact",
                {
                    "summary": "Never push to the main branch. "
                    "Edited src/app.py and lib/new.py as discussed earlier."
                },
            ],
        ],
    )
    d = diff(log, 1)
    assert dict(d.replaced_by_kind) == {"message": 2, "tool_call": 1, "tool_result": 1}
    rows = {r.text: (r.survival, r.line, r.source) for r in d.constraints}
    assert rows["Never push to the main branch"] == (
        Survival.KEPT,
        2,
        "Never push to the main branch.",
    )
    assert rows["Do not touch src/db.py"] == (Survival.LOST, 2, "Do not touch src/db.py.")
    assert [(i.text, i.summary_line) for i in d.invented] == [("lib/new.py", 1)]
    assert d.ghost_references == ("as discussed earlier",)
    assert {f.rule_id for f in d.findings} >= {"CK002", "CK003", "CK006"}
    with pytest.raises(NoSuchCompactionError, match="has 1"):
        diff(log, 2)


def test_rule_metadata_is_validated_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match="id must look like"):

        class BadId(Rule):
            """Doc."""

            id = "X1"
            name = "bad-id"
            level = Severity.INFO
            summary = "bad"

    with pytest.raises(TypeError, match="kebab-case"):

        class BadName(Rule):
            """Doc."""

            id = "CK900"
            name = "Bad_Name"
            level = Severity.INFO
            summary = "bad"

    with pytest.raises(TypeError, match="docstring"):

        class NoDoc(Rule):
            id = "CK901"
            name = "no-doc"
            level = Severity.INFO
            summary = "bad"


def test_registry_ids_are_unique_and_in_order() -> None:
    ids = [r.id for r in RULES]
    assert ids == sorted(set(ids))
    assert ids == [f"CK{n:03d}" for n in range(1, 12)]


def test_sessions_come_back_in_the_order_given(tmp_path: Path) -> None:
    first = write_log(tmp_path / "b.jsonl", [["user", "hi"]])
    second = read_session(write_log(tmp_path / "a.jsonl", [["user", "hi"]]))
    result = audit([first, second, tmp_path / "missing.jsonl"])
    assert [s.path for s in result.sessions] == [str(first), str(tmp_path / "a.jsonl")]
    assert [p.reason for p in result.problems] == ["no such file or directory"]


def test_the_collector_is_paused_only_while_auditing(tmp_path: Path) -> None:
    import gc

    examples = Path(__file__).resolve().parent.parent / "examples"
    assert gc.isenabled()
    assert audit(examples).sessions
    assert gc.isenabled()  # resumed, also after reading
    sweep([examples], jobs=1)
    assert gc.isenabled()
    gc.disable()
    try:
        audit(examples)
        assert not gc.isenabled()  # a caller's own pause is left alone
    finally:
        gc.enable()


def test_items_after_an_encrypted_summary_are_low_confidence() -> None:
    # The Codex example: compaction 1 is an encrypted "compaction" item; what it carried
    # into compaction 2's sources cannot be read, so "base 200ms" (code written before
    # compaction 1) is not stated as invented.
    log = next((Path(__file__).parent.parent / "examples" / "codex").glob("*.jsonl"))
    result = audit(log, select=["CK002"])
    details = {d.item: d for f in result.findings for d in f.items_detail}
    assert details["200ms"].confidence is Confidence.LOW
    assert "encrypted" in details["200ms"].why


def test_items_after_any_encrypted_previous_summary_are_low_confidence(tmp_path: Path) -> None:
    # The same session with its first compaction made opaque (as Codex's encrypted
    # "compaction" item is): the second summary's missing items lose their certainty.
    log = write_log(
        tmp_path / "s.jsonl",
        [
            ["user", "Add retries."],
            ["compact", {"summary": "Retries added."}],
            ["user", "Now the docs."],
            ["compact", {"summary": "Retries wait 250ms between attempts."}],
        ],
    )
    session = read_session(log)
    first, second = session.compactions
    sure = audit(session, select=["CK002"]).findings
    assert [(f.compaction, f.confidence) for f in sure] == [(2, Confidence.HIGH)]
    hidden = dataclasses.replace(
        session,
        compactions=(
            dataclasses.replace(first, opaque=True, summary=None),
            dataclasses.replace(second, previous_summary=None),
        ),
    )
    (unsure,) = audit(hidden, select=["CK002"]).findings
    assert unsure.confidence is Confidence.LOW
    assert "encrypted" in unsure.items_detail[0].why
