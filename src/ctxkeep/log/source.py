"""Reading raw bytes into JSON records without ever failing on bad input.

Every adapter reads through here. A line that cannot be decoded becomes a
:class:`ParseProblem` with its 1-based line number and a reason a person can act on;
the lines after it are still read. Nothing here writes.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import msgspec

from ctxkeep.log.model import ParseProblem

__all__ = [
    "MAX_PROBLEMS_PER_FILE",
    "Head",
    "NotAFileError",
    "Record",
    "cap_problems",
    "decode_json",
    "iter_records",
    "not_a_file_reason",
    "open_regular",
    "read_head",
    "read_regular",
    "read_whole",
]

_decoder = msgspec.json.Decoder()

MAX_PROBLEMS_PER_FILE = 20
"""Located problems kept per file; the rest are counted in one last line. A binary file
given as a message list printed 10,769 "invalid JSON" lines (issue 14)."""
_HEAD_RECORDS = 25
_HEAD_BYTES = 1 << 20
_READ_BUFFER = 1 << 20


class Record(msgspec.Struct, frozen=True):
    """One decoded JSON value and the 1-based line it started on (a Struct, one per
    line of a log, for the reason given on :class:`~ctxkeep.log.model.Event`)."""

    line: int
    value: Any


def decode_json(data: bytes | str) -> Any:
    """Decode one JSON document; raises ``ValueError`` with a readable reason."""
    try:
        return _decoder.decode(data)
    except msgspec.DecodeError as exc:
        msg = str(exc)
        if "utf-8" in msg.lower() or "unicode" in msg.lower():
            raise ValueError(f"invalid UTF-8 ({msg})") from None
        raise ValueError(f"invalid JSON ({msg})") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


_SPECIAL_FILES = (
    (
        stat.S_ISFIFO,
        "is a FIFO (named pipe), not a session log file: not read (a pipe may never end)",
    ),
    (stat.S_ISCHR, "is a character device, not a session log file: not read (it may never end)"),
    (stat.S_ISBLK, "is a block device, not a session log file: not read"),
    (stat.S_ISSOCK, "is a socket, not a session log file: not read"),
    (stat.S_ISDIR, "is a directory, not a session log file"),
)


def not_a_file_reason(mode: int) -> str | None:
    """Why a file of this ``st_mode`` is not read as a log (a FIFO, a device, a folder...),
    or None for a regular file. A FIFO blocks its reader until a writer comes and a device
    like ``/dev/zero`` never ends: reading either hangs or runs out of memory."""
    for test, reason in _SPECIAL_FILES:
        if test(mode):
            return reason
    return None


class NotAFileError(OSError):
    """``open_regular`` was given something that is not a regular file; ``strerror`` says
    what it is."""


def open_regular(path: str | os.PathLike[str], buffering: int = -1) -> IO[bytes]:
    """Open ``path`` for reading in binary, only when it is a regular file.

    Opened non-blocking and checked with ``fstat`` before anything is read, so a FIFO
    with no writer never blocks the open; raises :class:`NotAFileError` (an ``OSError``
    whose ``strerror`` says what the path is) for anything but a regular file.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        reason = not_a_file_reason(os.fstat(fd).st_mode)
        if reason is not None:
            raise NotAFileError(0, reason, os.fspath(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The whole content of a regular file (see :func:`open_regular`)."""
    with open_regular(path) as fh:
        return fh.read()


def cap_problems(
    problems: list[tuple[int, str]], limit: int = MAX_PROBLEMS_PER_FILE
) -> list[tuple[int, str]]:
    """The first ``limit`` (line, reason) problems of one file, and one more that counts
    the rest ("... and N more problems in this file") at the line of the first left out."""
    if len(problems) <= limit:
        return problems
    rest = len(problems) - limit
    more = f"\u2026 and {rest} more problem{'s' if rest != 1 else ''} in this file"
    return [*problems[:limit], (problems[limit][0], more)]


def _problem_for_path(path: Path) -> ParseProblem | None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return ParseProblem(0, "broken symbolic link" if path.is_symlink() else "no such file")
    except OSError as exc:
        return ParseProblem(0, f"cannot open: {exc.strerror or exc}")
    reason = not_a_file_reason(mode)
    return None if reason is None else ParseProblem(0, reason)


def iter_records(
    path: Path | bytes, decoder: msgspec.json.Decoder[Any] | None = None
) -> Iterator[Record | ParseProblem]:
    """Yield each line of a JSONL file as a :class:`Record` or a :class:`ParseProblem`.

    ``path`` may also be the content itself (bytes already read, e.g. from stdin).

    Blank lines are skipped. A file with NUL bytes in its first kilobytes is reported as
    binary and not read further; an empty file yields one problem.

    ``decoder`` (typed, e.g. a ``msgspec.Struct`` of the fields an adapter reads) is
    tried first on every line; a line it rejects is decoded untyped, so a record of
    another shape is still yielded (as a plain value) and a broken line gets the same
    reason either way.
    """
    decode = (decoder or _decoder).decode
    fh: IO[bytes]
    if isinstance(path, bytes):
        fh = io.BytesIO(path)
    else:
        problem = _problem_for_path(path)
        if problem is not None:
            yield problem
            return
        try:
            # Lines of agent logs run to tens of kilobytes: with the default 8 KiB buffer,
            # iterating them costs more than decoding them (200 MB log: 147 -> 58 ms).
            fh = open_regular(path, buffering=_READ_BUFFER)
        except OSError as exc:
            yield ParseProblem(0, f"cannot open: {exc.strerror or exc}")
            return
    with fh:
        first = fh.read(8192)
        if not first:
            yield ParseProblem(0, "empty file")
            return
        if b"\x00" in first:
            yield ParseProblem(1, "binary file (NUL bytes), not a JSON log")
            return
        fh.seek(0)
        lineno = 0
        for raw in fh:
            lineno += 1
            # the decoder skips the whitespace around a value: strip only what fails
            try:
                value = decode(raw)
            except (msgspec.DecodeError, RecursionError):
                stripped = raw.strip()
                if stripped:
                    yield _decode_line(decode, decoder is not None, lineno, raw, stripped)
                continue
            yield Record(lineno, value)


def _decode_line(
    decode: Callable[[bytes], Any], typed: bool, lineno: int, raw: bytes, stripped: bytes
) -> Record | ParseProblem:
    try:
        return Record(lineno, decode(stripped))
    except (msgspec.DecodeError, RecursionError) as exc:
        error: Exception = exc
    if typed:  # another shape than the adapter's fields, or broken: decode it untyped
        try:
            return Record(lineno, _decoder.decode(stripped))
        except (msgspec.DecodeError, RecursionError) as exc:
            error = exc
    if not raw.endswith(b"\n") and isinstance(error, msgspec.DecodeError):
        return ParseProblem(lineno, "truncated last line (no newline, incomplete JSON)")
    try:
        decode_json(stripped)
    except ValueError as err:
        return ParseProblem(lineno, str(err))
    return ParseProblem(lineno, "invalid JSON")  # pragma: no cover - deterministic decoder


def read_whole(path: Path) -> tuple[Any, ParseProblem | None]:
    """Decode a whole file as one JSON document (plain message arrays)."""
    problem = _problem_for_path(path)
    if problem is not None:
        return None, problem
    try:
        data = read_regular(path)
    except OSError as exc:
        return None, ParseProblem(0, f"cannot open: {exc.strerror or exc}")
    if not data.strip():
        return None, ParseProblem(0, "empty file")
    if b"\x00" in data[:8192]:
        return None, ParseProblem(1, "binary file (NUL bytes), not a JSON log")
    try:
        return decode_json(data), None
    except ValueError as exc:
        return None, ParseProblem(1, str(exc))


@dataclass(frozen=True, slots=True)
class Head:
    """What sniffing sees: the first decoded records of a file, or a folder's listing.

    ``whole`` is the whole document when the file is one JSON value spread over several
    lines (a pretty-printed array), else None. ``is_dir`` marks a folder (OpenHands V1).
    """

    path: Path
    records: tuple[Any, ...]
    whole: Any
    is_dir: bool


def read_head(path: Path) -> Head:
    """Read just enough of ``path`` to tell its format."""
    if path.is_dir():
        return Head(path, (), None, True)
    records: list[Any] = []
    try:
        with open_regular(path) as fh:
            chunk = fh.read(_HEAD_BYTES)
    except OSError:
        return Head(path, (), None, False)
    if b"\x00" in chunk[:8192]:
        return Head(path, (), None, False)
    lines = chunk.split(b"\n")
    if len(chunk) == _HEAD_BYTES:
        lines = lines[:-1]  # the last piece may be cut
    first_line_decoded: bool | None = None
    for raw in lines:
        if not raw.strip():
            continue
        try:
            records.append(_decoder.decode(raw))
        except (msgspec.DecodeError, RecursionError):
            first_line_decoded = first_line_decoded or False
            continue
        first_line_decoded = first_line_decoded is None or first_line_decoded
        if len(records) >= _HEAD_RECORDS:
            break
    whole: Any = None
    stripped = chunk.lstrip()
    # A document spread over lines (a pretty-printed array or object) has a first line that
    # is not JSON by itself; the inner lines that happen to decode are not records.
    spread = first_line_decoded is False
    looks_like_document = stripped[:1] in (b"[", b"{") and (
        spread or not records or isinstance(records[0], list)
    )
    if looks_like_document:
        size = os.path.getsize(path)  # a regular file: open_regular read it
        if size <= 64 * _HEAD_BYTES:
            whole, _ = read_whole(path)
        if spread and whole is not None:
            records = []
    return Head(path, tuple(records), whole, False)
