"""Make the trimmed copies of the real session logs kept in ``benchmarks/real-logs/``.

    .venv/bin/python benchmarks/trim_real_logs.py SOURCE_DIR [--out benchmarks/real-logs]

SOURCE_DIR holds the original ``*.jsonl.gz`` logs (provenance in
``benchmarks/real-logs/SOURCES.md``). Each line is decoded, loses only fields that
ctxkeep never reads and that hold no text the model saw, and is written back in the
harness's own compact JSON form, so every other byte of the line is unchanged:

- Claude Code ``toolUseResult``: the harness's second copy of each tool's output (the
  model saw the ``tool_result`` block in ``message``, which stays), about half a log;
- Claude Code thinking-block ``signature``: an opaque base64 blob.

No line is removed, added or reordered, so a line number in a trimmed copy, in a label
file or in a finding is the line number in the original. A line that is not JSON is
copied as it is. Codex logs are copied unchanged (nothing large in them is unread).
The gzip header carries no name and no time, so re-running gives the same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["trim_line", "trim_record", "write_gzip"]

DEFAULT_OUT = Path(__file__).resolve().parent / "real-logs"


def trim_record(record: Any) -> Any:
    """``record`` without the fields listed in the module docstring (edited in place)."""
    if not isinstance(record, dict):
        return record
    record.pop("toolUseResult", None)
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "thinking":
                block.pop("signature", None)
    return record


def trim_line(line: str) -> str:
    """One log line (without its newline) trimmed, or unchanged when it is not JSON."""
    try:
        record = json.loads(line)
    except ValueError:
        return line
    return json.dumps(trim_record(record), ensure_ascii=False, separators=(",", ":"))


def write_gzip(path: Path, data: bytes) -> None:
    """Write ``data`` gzip-compressed with a reproducible header (no name, mtime 0)."""
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write(data)


def trim_file(source: Path, out_dir: Path) -> Path:
    """Trim one ``.jsonl.gz`` log into ``out_dir`` (same name); returns the new path."""
    text = gzip.decompress(source.read_bytes()).decode("utf-8")
    lines = text.split("\n")
    if source.name.startswith("claude-code"):
        lines = [trim_line(line) if line else line for line in lines]
    target = out_dir / source.name
    write_gzip(target, "\n".join(lines).encode("utf-8"))
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="folder of the original *.jsonl.gz logs")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the copies go")
    args = parser.parse_args(argv)
    sources = sorted(args.source.glob("*.jsonl.gz"))
    if not sources:
        print(f"no *.jsonl.gz in {args.source}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for source in sources:
        target = trim_file(source, args.out)
        print(f"{target.name}: {source.stat().st_size:,} -> {target.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
