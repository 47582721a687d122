"""Issue 14, the suite itself: no wall-clock deadline in any test; optional extras skip."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

TESTS = Path(__file__).resolve().parents[1]


def test_hypothesis_has_no_deadline_anywhere() -> None:
    # test_split failed on hypothesis' 200 ms deadline when the machine was loaded
    assert settings.default is not None
    assert settings.default.deadline is None
    for path in TESTS.rglob("*.py"):
        if path == Path(__file__).resolve():
            continue
        for found in re.finditer(r"deadline\s*=\s*([^,)\s]+)", path.read_text(encoding="utf-8")):
            assert found.group(1) == "None", f"{path}: deadline={found.group(1)}"


def test_the_mcp_tests_skip_without_anyio(tmp_path: Path) -> None:
    # tests/mcp failed to collect when anyio was absent
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('anyio', 'mcp'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, _Block())\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TESTS / "mcp")],
        capture_output=True,
        text=True,
        cwd=TESTS.parent,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: every test skipped
    assert "skipped" in done.stdout
    assert "error" not in done.stdout.lower()
