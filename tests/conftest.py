"""Test-wide isolation: nothing a test runs may write outside a temporary folder.

``CTXKEEP_HOME`` points at a session-wide temporary folder and ``CTXKEEP_PROVENANCE`` is
``test``, so any statistics a test records are tagged and kept apart from real runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# No wall-clock limit in any test: on a loaded machine (2 cores, 8 engineers) hypothesis'
# 200 ms deadline and its too-slow health check fail tests that are correct. Every
# @settings(...) in the suite inherits from this profile.
settings.register_profile("ctxkeep", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ctxkeep")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="session", autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("ctxkeep-home")
    saved = {k: os.environ.get(k) for k in ("CTXKEEP_HOME", "CTXKEEP_PROVENANCE")}
    os.environ["CTXKEEP_HOME"] = str(home)
    os.environ["CTXKEEP_PROVENANCE"] = "test"
    yield home
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def run_cli(
    *args: str,
    cwd: Path | None = None,
    stdin: str | None = None,
    prefix: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``ctxkeep ARGS`` as a real subprocess of this interpreter.

    ``prefix`` runs it through another command (``setpriv ...``); ``env`` adds variables.
    The timeout only stops a hung run (a test of a hang that came back); it is not a
    measure of speed.
    """
    return subprocess.run(
        [*prefix, sys.executable, "-m", "ctxkeep", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        timeout=300,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )
