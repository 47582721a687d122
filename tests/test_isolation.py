"""Nothing the test suite runs may write outside a temporary folder.

The incident behind issue 5: the statistics that tuned compaction were written by a test
suite into the user's home folder, so the "adaptive" parameters learnt from fixtures.
Here guard (with an event log and statistics), compact (with receipts) and the stats store
run in a subprocess whose HOME and XDG folders point at a fresh temporary folder (made
read-only: a stray write fails there unless the tests run as root, and is caught by the
listing either way), and the real home folder and working directory are compared before
and after.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

from ctxkeep.base.paths import ctxkeep_home

SCRIPT = """
import sys
from pathlib import Path

from ctxkeep.compactor import compact
from ctxkeep.verify import CtxkeepCompaction, StatsStore, guard
from tests.verify.sessions import chatty_session, incident_session
from tests.verify.test_guard import naive_compactor

work = Path(sys.argv[1])
stats = StatsStore()
guarded = guard(
    naive_compactor,
    fallbacks=(CtxkeepCompaction(task="tea"),),
    event_log=work / "guard.jsonl",
    stats=stats,
)
assert guarded(chatty_session()).success
assert guard(naive_compactor, stats=stats)(incident_session()).success
result = compact(chatty_session(), "tea", target_tokens=800, receipt_path=work / "receipts.jsonl")
assert result.receipt_path is not None, result.problems
print(stats.path)
print(stats.recommend())
"""

REPO = Path(__file__).resolve().parent.parent


def listing(folder: Path) -> set[str]:
    """Every path under ``folder``, relative to it."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def top_level(folder: Path) -> set[str]:
    """Names only: other processes on this machine may touch existing files meanwhile."""
    return {p.name for p in folder.iterdir()}


def ctxkeep_data(home: Path) -> dict[str, int]:
    """ctxkeep's default data folder under a home, with modification times."""
    data = home / ".local" / "share" / "ctxkeep"
    return {str(p): p.stat().st_mtime_ns for p in data.rglob("*")} if data.exists() else {}


def run_isolated(tmp_path: Path, *, ctxkeep_home: Path | None) -> tuple[str, Path]:
    fake_home = tmp_path / "home"
    fake_home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CTXKEEP_"))}
    env |= {
        "HOME": str(fake_home),
        "XDG_DATA_HOME": str(fake_home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(fake_home / ".config"),
        "XDG_CACHE_HOME": str(fake_home / ".cache"),
        "XDG_STATE_HOME": str(fake_home / ".local" / "state"),
        "CTXKEEP_PROVENANCE": "test",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(REPO),
    }
    if ctxkeep_home is not None:
        env["CTXKEEP_HOME"] = str(ctxkeep_home)
    else:  # the default data folder must follow XDG_DATA_HOME; let it exist
        (fake_home / ".local" / "share").mkdir(parents=True)
    fake_home.chmod(stat.S_IRUSR | stat.S_IXUSR)
    real_home, real_cwd = Path.home(), Path.cwd()
    home_before, cwd_before = top_level(real_home), top_level(real_cwd)
    data_before = ctxkeep_data(real_home)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(work)],
            capture_output=True,
            text=True,
            cwd=work,
            env=env,
            timeout=300,
            check=False,
        )
    finally:
        fake_home.chmod(stat.S_IRWXU)
    assert proc.returncode == 0, proc.stderr
    assert top_level(real_home) == home_before
    assert top_level(real_cwd) == cwd_before
    assert ctxkeep_data(real_home) == data_before
    assert listing(work) == {"guard.jsonl", "receipts.jsonl"}
    return proc.stdout, fake_home


def test_guard_compact_and_stats_write_only_into_temporary_folders(tmp_path: Path) -> None:
    home = tmp_path / "ctxkeep-home"
    stdout, fake_home = run_isolated(tmp_path, ctxkeep_home=home)
    assert listing(fake_home) == set()  # nothing reached the (redirected) home folder
    assert listing(home) == {"stats.sqlite3"}
    stats_path, advice = stdout.splitlines()
    assert Path(stats_path) == home / "stats.sqlite3"
    assert advice == "no recommendation: no real compactions recorded (2 test records ignored)"


def test_without_ctxkeep_home_the_store_follows_xdg_data_home(tmp_path: Path) -> None:
    stdout, fake_home = run_isolated(tmp_path, ctxkeep_home=None)
    data = fake_home / ".local" / "share" / "ctxkeep" / "stats.sqlite3"
    assert Path(stdout.splitlines()[0]) == data
    assert listing(fake_home) == {
        ".local",
        ".local/share",
        ".local/share/ctxkeep",
        ".local/share/ctxkeep/stats.sqlite3",
    }


def test_this_session_points_ctxkeep_home_at_a_temporary_folder(isolated_home: Path) -> None:
    assert ctxkeep_home() == isolated_home
    assert isolated_home.is_relative_to(Path(tempfile.gettempdir()))
    assert os.environ["CTXKEEP_PROVENANCE"] == "test"
