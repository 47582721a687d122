"""The one place that knows where ctxkeep may write on its own account.

Every path under the user's data folder goes through :func:`ctxkeep_home`, which honours
``CTXKEEP_HOME`` first. Tests point that variable at a temporary folder, so nothing a test
runs can reach the real home folder.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ctxkeep_home"]


def ctxkeep_home(*, create: bool = False) -> Path:
    """Return ctxkeep's data folder: ``$CTXKEEP_HOME``, else the per-user data folder.

    The per-user folder follows the XDG base directory rule (``$XDG_DATA_HOME/ctxkeep``,
    default ``~/.local/share/ctxkeep``). With ``create`` the folder is made if missing.
    """
    env = os.environ.get("CTXKEEP_HOME")
    if env:
        home = Path(env).expanduser()
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        home = Path(base) / "ctxkeep"
    if create:
        home.mkdir(parents=True, exist_ok=True)
    return home
