"""Session logs the HTML tests open: a hostile one (markup in every text) and a long one."""

from __future__ import annotations

import json
from pathlib import Path

from ctxkeep.bench.logs import write_log

HOSTILE_SCRIPT = "<script>window.__ckPwned = 1</script>"
HOSTILE_IMG = '<img src=x onerror="window.__ckPwned = 2">'
HOSTILE_CLOSE = "</script><script>window.__ckPwned = 3</script><!--"
HOSTILE_CONSTRAINT = "Do not remove the <b>bold</b> markers from src/app/views.py"
HOSTILE_INVENTED = "src/app/</script>evil.py"


def write_hostile_log(path: Path) -> Path:
    """A ctxkeep event log whose messages, tool output and summary all carry markup:
    one constraint lost (it holds a tag) and one invented path that closes a script."""
    records = [
        {"type": "session", "v": 1, "id": "hostile", "harness": "test", "model": "m"},
        {"type": "message", "seq": 1, "role": "user", "text": f"Hi {HOSTILE_SCRIPT}"},
        {"type": "message", "seq": 2, "role": "user", "text": HOSTILE_CONSTRAINT + "."},
        {"type": "usage", "seq": 3, "context_tokens": 900},
        {"type": "tool/call", "seq": 4, "call_id": "c1", "name": "read", "input": {"p": "x"}},
        {"type": "tool/result", "seq": 5, "call_id": "c1", "text": HOSTILE_IMG},
        {"type": "message", "seq": 6, "role": "assistant", "text": HOSTILE_CLOSE},
        {"type": "usage", "seq": 7, "context_tokens": 5000},
        {"type": "compaction/start", "seq": 8, "compaction_id": "k1", "trigger": "auto"},
        {
            "type": "compaction/end",
            "seq": 9,
            "compaction_id": "k1",
            "status": "summarised",
            "summary": f"The user said hi {HOSTILE_SCRIPT}. Next: edit {HOSTILE_INVENTED} "
            f"and {HOSTILE_IMG}.",
            "shadowed_seqs": [[1, 7]],
        },
        {"type": "usage", "seq": 10, "context_tokens": 400},
        {"type": "message", "seq": 11, "role": "user", "text": "continue"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def write_long_log(path: Path, events: int = 20_000) -> Path:
    """A generated Claude Code log of at least ``events`` events (about 12 MB)."""
    write_log(path, events * 600)
    return path
