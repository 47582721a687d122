"""Issue 14, paths: the one walker behind audit/sweep/show, and files that are not files.

Each test is a reproducer of the issue first: it hung, crashed or misspoke on the code the
issue was filed against.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ctxkeep.log.reader import discover, read_session
from ctxkeep.log.source import iter_records, read_head, read_whole
from tests.conftest import EXAMPLES, run_cli

LOG = EXAMPLES / "claude-code" / "tinyparse-three-compactions.jsonl"


def _tree_with_log(tmp_path: Path) -> Path:
    d = tmp_path / "d"
    d.mkdir()
    shutil.copy(LOG, d / "s.jsonl")
    return d


def _sources(*paths: Path) -> tuple[list[Path], list[str]]:
    found: list[Path] = []
    problems: list[str] = []
    for item in discover(paths):
        if isinstance(item, tuple):
            problems.append(f"{item[0]}: {item[1].reason}")
        else:
            found.append(item)
    return found, problems


def test_two_links_to_the_folder_itself_end_and_say_so(tmp_path: Path) -> None:
    # mkdir d; ln -s . d/a; ln -s . d/b; ctxkeep audit d  -- walked forever, memory rising
    d = _tree_with_log(tmp_path)
    (d / "a").symlink_to(".")
    (d / "b").symlink_to(".")
    found, problems = _sources(d)
    assert found == [d / "s.jsonl"]
    assert len(problems) == 2
    assert all("symbolic link loop" in p for p in problems)
    result = run_cli("audit", str(d), "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    assert '"path": "' + str(d / "s.jsonl") in result.stdout


def test_a_link_to_the_folder_itself_reads_each_log_once(tmp_path: Path) -> None:
    # one self-link audited the same file 41 times
    d = _tree_with_log(tmp_path)
    (d / "self").symlink_to(".")
    found, problems = _sources(d)
    assert found == [d / "s.jsonl"]
    assert [p.split(": ", 1)[0] for p in problems] == [str(d / "self")]


def test_two_links_to_one_log_read_it_once(tmp_path: Path) -> None:
    d = _tree_with_log(tmp_path)
    (d / "t.jsonl").symlink_to("s.jsonl")
    found, _ = _sources(d)
    assert len(found) == 1


def test_a_link_into_a_folder_elsewhere_is_followed(tmp_path: Path) -> None:
    elsewhere = _tree_with_log(tmp_path)
    d = tmp_path / "logs"
    d.mkdir()
    (d / "linked").symlink_to(elsewhere)
    found, problems = _sources(d)
    assert found == [d / "linked" / "s.jsonl"]
    assert problems == []


def test_a_dangling_link_is_a_located_problem(tmp_path: Path) -> None:
    d = _tree_with_log(tmp_path)
    (d / "gone.jsonl").symlink_to("nowhere.jsonl")
    found, problems = _sources(d)
    assert found == [d / "s.jsonl"]
    assert problems == [f"{d / 'gone.jsonl'}: broken symbolic link"]


def _without_privileges() -> tuple[str, ...]:
    """Run a child without root's right to read anything (mode bits then apply)."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root and no setpriv to drop root's file capabilities")
    return (setpriv, "--inh-caps=-all", "--bounding-set=-all", "--")


def test_an_unreadable_folder_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    # a mode-000 folder inside the tree aborted audit/sweep with a PermissionError
    d = _tree_with_log(tmp_path)
    locked = d / "locked"
    locked.mkdir()
    shutil.copy(LOG, locked / "hidden.jsonl")
    locked.chmod(0)
    try:
        prefix = _without_privileges()
        for command in ("audit", "sweep", "show"):
            result = run_cli(command, str(d), prefix=prefix)
            assert "Traceback" not in result.stderr, result.stderr
            assert "tinyparse" in result.stdout or "s.jsonl" in result.stdout, result.stdout
            assert f"{locked}" in result.stdout + result.stderr
            assert "ermission denied" in result.stdout + result.stderr
    finally:
        locked.chmod(stat.S_IRWXU)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "f.jsonl"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", ["compact", "check-messages", "receipts", "score", "audit"])
def test_a_fifo_is_refused_never_read(fifo: Path, command: str) -> None:
    # mkfifo f; ctxkeep compact f  -- blocked forever (no writer ever comes)
    extra = {"compact": ["--target-bytes", "100"], "score": []}.get(command, [])
    result = run_cli(command, str(fifo), *extra)
    assert result.returncode == 2, (result.stdout, result.stderr)
    said = result.stdout + result.stderr
    assert "FIFO" in said, said
    assert "folder holds no" not in said


def test_the_readers_refuse_a_fifo_without_opening_it_to_read(fifo: Path) -> None:
    problems = [p for p in iter_records(fifo) if not hasattr(p, "value")]
    assert ["FIFO" in p.reason for p in problems] == [True]
    assert read_whole(fifo)[1] is not None
    assert read_head(fifo).records == ()
    session = read_session(fifo, format="openai")
    assert "FIFO" in session.problems[0].reason


@pytest.mark.parametrize("command", ["compact", "check-messages", "receipts", "audit"])
def test_a_device_is_refused(command: str) -> None:
    # /dev/zero ran compact/check-messages/receipts out of memory
    extra = ["--target-bytes", "100"] if command == "compact" else []
    result = run_cli(command, "/dev/zero", *extra)
    assert result.returncode == 2
    assert "character device" in result.stdout + result.stderr


def test_stdin_from_a_device_is_refused() -> None:
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [sys.executable, "-m", "ctxkeep", "compact", "-", "--target-bytes", "10"],
            stdin=zero,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 2
    assert "character device" in done.stderr
