"""The trimmed real logs of benchmarks/real-logs/ read as their originals do.

``benchmarks/trim_real_logs.py`` drops fields ctxkeep never reads; these tests hold it to
that: the same events, compactions and findings, from the library and from the
``ctxkeep show`` / ``ctxkeep audit --format json`` commands. The comparison with the
originals needs them (``CTXKEEP_REAL_LOGS=DIR`` or a ``shared/real-logs/`` folder beside
the repository or one of its parents) and is skipped without them; the rest always runs.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ctxkeep.engine import audit_session
from ctxkeep.log import read_session
from tests.conftest import run_cli

REPO = Path(__file__).resolve().parents[2]
TRIMMED = REPO / "benchmarks" / "real-logs"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude_code"


def _trim_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "trim_real_logs", REPO / "benchmarks" / "trim_real_logs.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _originals() -> Path | None:
    env = os.environ.get("CTXKEEP_REAL_LOGS")
    if env:
        return Path(env)
    for parent in REPO.parents:
        candidate = parent / "shared" / "real-logs"
        if candidate.is_dir():
            return candidate
    return None


def _unzip(source: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name.removesuffix(".gz")
    target.write_bytes(gzip.decompress(source.read_bytes()))
    return target


TRIMMED_LOGS = sorted(TRIMMED.glob("*.jsonl.gz"))


def test_every_labelled_log_has_its_trimmed_copy() -> None:
    assert len(TRIMMED_LOGS) == 9
    for label in sorted((TRIMMED / "labels").glob("*.json")):
        log = json.loads(label.read_text(encoding="utf-8"))["log"]
        assert (TRIMMED / log).is_file(), label.name


def test_trim_keeps_every_field_the_reader_reads() -> None:
    """A record with the dropped fields reads as the same record without them."""
    trim = _trim_module()
    record: dict[str, Any] = {
        "type": "assistant",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "plan: read `a.py`", "signature": "QUJD" * 50},
                {"type": "text", "text": "Reading `a.py`"},
            ],
        },
        "toolUseResult": {"stdout": "x" * 500},
    }
    trimmed = json.loads(trim.trim_line(json.dumps(record)))
    assert "toolUseResult" not in trimmed
    assert "signature" not in trimmed["message"]["content"][0]
    assert trimmed["message"]["content"][0]["thinking"] == "plan: read `a.py`"
    assert trimmed["message"]["content"][1] == record["message"]["content"][1]
    assert trim.trim_line("{not json") == "{not json"


def test_trimmed_fixture_reads_the_same(tmp_path: Path) -> None:
    """The bundled Claude Code fixture, trimmed, gives the same events and findings."""
    trim = _trim_module()
    original = FIXTURES / "compactions.jsonl"
    lines = original.read_text(encoding="utf-8").split("\n")
    copy = tmp_path / "compactions.jsonl"
    copy.write_text("\n".join(trim.trim_line(x) if x else x for x in lines), encoding="utf-8")
    a, b = read_session(original), read_session(copy)
    assert a.events == b.events
    assert [c.summary for c in a.compactions] == [c.summary for c in b.compactions]
    fa = [(f.rule_id, f.lines, f.items) for f in audit_session(a).findings]
    fb = [(f.rule_id, f.lines, f.items) for f in audit_session(b).findings]
    assert fa == fb


@pytest.mark.parametrize("trimmed", TRIMMED_LOGS, ids=lambda p: p.name)
def test_trimmed_copy_is_trimmed(trimmed: Path) -> None:
    """Every line is still a JSON record, and none holds a field the trim drops."""
    lines = gzip.decompress(trimmed.read_bytes()).decode("utf-8").splitlines()
    assert lines
    records = [json.loads(line) for line in lines]
    assert all("toolUseResult" not in r for r in records)


def _read_all(folder: Path) -> tuple[list[Any], Any, Any]:
    """Library read of every log in ``folder``, and the show / audit commands' JSON."""
    sessions = []
    for log in sorted(folder.glob("*.jsonl")):
        s = read_session(log)
        compactions = [(c.line, c.summary_line, c.summary, c.shadowed_seqs) for c in s.compactions]
        sessions.append((log.name, s.events, compactions, s.hooks_unrecorded, s.problems))
    outputs = []
    for command in (["show", "--format", "json"], ["audit", "--format", "json"]):
        done = run_cli(*command, str(folder))
        assert done.returncode in (0, 1), (command, done.stderr)
        outputs.append(json.loads(done.stdout))
    return sessions, outputs[0], outputs[1]


def test_trimmed_copies_read_as_the_originals(tmp_path: Path) -> None:
    """Same events, compactions and findings (fingerprints too: the paths are the same)."""
    originals = _originals()
    if originals is None or not any(originals.glob("*.jsonl.gz")):
        pytest.skip("the original real logs are not at hand (set CTXKEEP_REAL_LOGS)")
    names = [p.name for p in TRIMMED_LOGS]
    assert sorted(p.name for p in originals.glob("*.jsonl.gz")) == names
    folder = tmp_path / "logs"
    for name in names:
        _unzip(originals / name, folder)
    before = _read_all(folder)
    for name in names:
        _unzip(TRIMMED / name, folder)
    after = _read_all(folder)
    assert before[0] == after[0]
    assert before[1] == after[1]
    assert before[2] == after[2]
    assert sum(len(s["findings"]) for s in after[2]["sessions"]) > 0
