from __future__ import annotations

import json
from pathlib import Path

from ctxkeep import CompactionStatus, EventKind, read_session
from tests.conftest import run_cli


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_native_log_reads_compactions_with_status_and_tokens(tmp_path: Path) -> None:
    log = _write(
        tmp_path / "s.jsonl",
        [
            {"type": "session", "v": 1, "id": "s1", "context_window": 200000},
            {"type": "message", "seq": 1, "role": "user", "text": "Do not touch src/api.py"},
            {"type": "usage", "seq": 2, "context_tokens": 900},
            {"type": "compaction/start", "seq": 3, "compaction_id": "c1", "trigger": "auto"},
            {
                "type": "compaction/end",
                "seq": 4,
                "compaction_id": "c1",
                "status": "summarised",
                "summary": "keep src/api.py",
                "shadowed_seqs": [[1, 2]],
            },
            {"type": "usage", "seq": 5, "context_tokens": 100},
            {"type": "compaction/start", "seq": 6, "compaction_id": "c2", "trigger": "manual"},
            {"type": "compaction/end", "seq": 7, "compaction_id": "c2", "error": "HTTP 529"},
            {"type": "compaction/start", "seq": 8, "compaction_id": "c3"},
            {"type": "future/thing", "seq": 9},
        ],
    )
    s = read_session(log)
    assert s.format == "ctxkeep"
    assert s.context_window == 200000
    assert [c.status for c in s.compactions] == [
        CompactionStatus.SUMMARISED,
        CompactionStatus.FAILED,
        CompactionStatus.STARTED,
    ]
    first = s.compactions[0]
    assert first.shadowed_seqs == (1, 2)
    assert (first.tokens_before, first.tokens_after) == (900, 100)
    assert s.compactions[1].previous_summary == "keep src/api.py"
    assert s.compactions[1].error == "HTTP 529"
    assert s.events[0].kind is EventKind.MESSAGE


def test_bad_lines_are_located_and_the_rest_is_read(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_bytes(
        b'{"type":"message","seq":1,"role":"user","text":"a"}\n'
        b"{not json\n"
        b'{"type":"message","seq":2,"role":"user","text":"\xff\xfe"}\n'
        b'{"type":"message","seq":3,"role":"user","text":"b"}\n'
        b'{"type":"message","seq":4,"role":"us'
    )
    s = read_session(log)
    assert [e.seq for e in s.events] == [1, 3]
    assert [p.line for p in s.problems] == [2, 3, 5]
    assert "truncated" in s.problems[-1].reason


def test_show_cli_json_contract(tmp_path: Path) -> None:
    log = _write(
        tmp_path / "s.jsonl",
        [
            {"type": "message", "seq": 1, "role": "user", "text": "hi"},
            {"type": "compaction/start", "seq": 2, "compaction_id": "c1"},
        ],
    )
    before = log.read_bytes()
    proc = run_cli("show", "--format", "json", str(log))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data == [
        {
            "path": str(log),
            "format": "ctxkeep",
            "events": 2,
            "by_kind": {"compaction_start": 1, "message": 1},
            "injected": 0,
            "problems": [],
            "compactions": [
                {
                    "index": 1,
                    "trigger": None,
                    "status": "started",
                    "tokens_before": None,
                    "tokens_after": None,
                    "shadowed": 0,
                    "summary_chars": None,
                }
            ],
        }
    ]
    assert log.read_bytes() == before


def test_show_exits_2_when_nothing_is_readable(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    proc = run_cli("show", str(empty))
    assert proc.returncode == 2
    # a whole-file problem names the file alone, not a line 0 no editor can open
    assert f"problem: {empty}: empty file" in proc.stdout
