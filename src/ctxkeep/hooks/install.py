"""``ctxkeep hook install / uninstall / status``: put the hooks in a harness's settings.

Where (``--harness``, ``--scope``):

- Claude Code: ``~/.claude/settings.json`` (user; ``$CLAUDE_CONFIG_DIR`` moves it) or
  ``<project>/.claude/settings.json`` (project);
- Codex: ``~/.codex/hooks.json`` or ``<project>/.codex/hooks.json``, and
  ``[features] hooks = true`` in ``~/.codex/config.toml`` (``$CODEX_HOME`` moves both;
  the flag is always the user's: that is where Codex reads it).

An install merges ctxkeep's ``SessionStart`` (matcher ``compact``) and ``PreCompact``
hooks into what is there, keeps every other hook, and changes nothing when they are
already in. Before a file is changed its bytes are copied to
``CTXKEEP_HOME/hook-backups/``; ``CTXKEEP_HOME/hook-installs.json`` remembers which backup
holds the bytes from before ctxkeep's change and what ctxkeep wrote. Uninstall puts the
original bytes back when the file is still as ctxkeep left it; when it was edited since,
only ctxkeep's hooks are taken out of it (a backup first).
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxkeep.base.paths import ctxkeep_home
from ctxkeep.hooks.settings import (
    SettingsError,
    add_hooks,
    dump_json,
    enable_hooks_flag,
    hooks_flag,
    load_json,
    ours_installed,
    remove_hooks,
)
from ctxkeep.hooks.versions import claude_config_dir, codex_home, compact_support, find_version

__all__ = [
    "HARNESSES",
    "SCOPES",
    "FileChange",
    "Plan",
    "SettingsError",
    "StatusRow",
    "apply_plan",
    "default_command",
    "plan_install",
    "plan_uninstall",
    "status",
]

HARNESSES = ("claude-code", "codex")
SCOPES = ("user", "project")
MANIFEST_NAME = "hook-installs.json"
BACKUP_FOLDER = "hook-backups"


def default_command() -> str:
    """How the harness should run ctxkeep: this very installation, by absolute path."""
    script = Path(sys.argv[0])
    if script.name == "ctxkeep" and script.is_file():
        return shlex.quote(str(script.resolve()))
    return f"{shlex.quote(sys.executable)} -m ctxkeep"


def hooks_path(harness: str, scope: str, home: Path, project: Path) -> Path:
    """The file holding the hooks for ``harness`` at ``scope``."""
    if harness == "claude-code":
        base = claude_config_dir(home) if scope == "user" else project / ".claude"
        return base / "settings.json"
    base = codex_home(home) if scope == "user" else project / ".codex"
    return base / "hooks.json"


def flag_path(harness: str, home: Path) -> Path | None:
    """Codex's ``config.toml`` (the feature flag); None for Claude Code."""
    return codex_home(home) / "config.toml" if harness == "codex" else None


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file's bytes before and after (None: the file does not exist / is removed)."""

    path: Path
    before: bytes | None
    after: bytes | None

    def diff(self) -> str:
        """The change as a unified diff (``/dev/null`` for a created or removed file)."""
        old = [] if self.before is None else _text(self.before).splitlines(keepends=True)
        new = [] if self.after is None else _text(self.after).splitlines(keepends=True)
        lines = difflib.unified_diff(
            old,
            new,
            str(self.path) if self.before is not None else "/dev/null",
            str(self.path) if self.after is not None else "/dev/null",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass(frozen=True, slots=True)
class Plan:
    """What an install or uninstall will change, and what the user should know."""

    harness: str
    scope: str
    action: str
    changes: tuple[FileChange, ...] = ()
    notes: tuple[str, ...] = ()


def _text(data: bytes) -> str:
    return data.decode("utf-8-sig")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _settings_text(path: Path, data: bytes | None) -> str:
    if data is None:
        return ""
    try:
        return _text(data)
    except UnicodeDecodeError:
        raise SettingsError(f"{path}: not UTF-8 text; nothing was changed") from None


def plan_install(harness: str, scope: str, command: str, home: Path, project: Path) -> Plan:
    """The changes an install makes; raises :class:`SettingsError` on a file it cannot edit."""
    path = hooks_path(harness, scope, home, project)
    before = _read(path)
    text = _settings_text(path, before)
    doc = load_json(text, str(path))
    changes: list[FileChange] = []
    notes: list[str] = []
    if add_hooks(doc, command, str(path)):
        changes.append(FileChange(path, before, dump_json(doc, text).encode()))
    else:
        notes.append(f"{path}: ctxkeep's hooks are already there; nothing to change")
    flag = flag_path(harness, home)
    if flag is not None:
        flag_before = _read(flag)
        flag_text = _settings_text(flag, flag_before)
        enabled = enable_hooks_flag(flag_text, str(flag))
        if enabled != flag_text:
            changes.append(FileChange(flag, flag_before, enabled.encode()))
        else:
            notes.append(f"{flag}: [features] hooks = true already; nothing to change")
    return Plan(harness, scope, "install", tuple(changes), tuple(notes))


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _manifest_path() -> Path:
    return ctxkeep_home() / MANIFEST_NAME


def _load_manifest() -> dict[str, Any]:
    try:
        raw = json.loads(_manifest_path().read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (keeps the mode)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.ctxkeep-{os.getpid()}.tmp")
    temporary.write_bytes(data)
    with contextlib.suppress(FileNotFoundError):  # a new file keeps the default mode
        os.chmod(temporary, path.stat().st_mode & 0o7777)
    os.replace(temporary, path)


def _backup(path: Path, data: bytes) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    folder = ctxkeep_home(create=True) / BACKUP_FOLDER
    folder.mkdir(exist_ok=True)
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    target = folder / f"{stamp}-{digest}-{path.name}"
    n = 1
    while target.exists():
        n += 1
        target = folder / f"{stamp}-{digest}-{n}-{path.name}"
    target.write_bytes(data)
    return target


def _remember(manifest: dict[str, Any], change: FileChange, backup: Path | None) -> None:
    """Record what ctxkeep wrote; keep the oldest original while nobody else edited since."""
    key = str(change.path)
    entry = manifest.get(key)
    unchanged_since = isinstance(entry, dict) and entry.get("written") == _digest(change.before)
    if unchanged_since and isinstance(entry, dict):
        entry["written"] = _digest(change.after)
        return
    manifest[key] = {
        "existed": change.before is not None,
        "backup": None if backup is None else str(backup),
        "written": _digest(change.after),
    }


def apply_plan(plan: Plan) -> list[Path]:
    """Make the changes of ``plan``: back up, write, and remember; the backups made."""
    manifest = _load_manifest()
    backups: list[Path] = []
    for change in plan.changes:
        backup = None if change.before is None else _backup(change.path, change.before)
        if backup is not None:
            backups.append(backup)
        if change.after is None:
            change.path.unlink(missing_ok=True)
        else:
            _write_atomically(change.path, change.after)
        if plan.action == "install":
            _remember(manifest, change, backup)
        else:
            manifest.pop(str(change.path), None)
    ctxkeep_home(create=True)
    _write_atomically(
        _manifest_path(), (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    )
    return backups


def _restore_original(path: Path, current: bytes | None, entry: Any) -> FileChange | None:
    """The change that puts back the bytes from before ctxkeep's edit, if still possible."""
    if not isinstance(entry, dict) or current is None or entry.get("written") != _digest(current):
        return None
    if not entry.get("existed"):
        return FileChange(path, current, None)
    backup = entry.get("backup")
    original = _read(Path(backup)) if isinstance(backup, str) else None
    return None if original is None else FileChange(path, current, original)


def plan_uninstall(harness: str, scope: str, home: Path, project: Path) -> Plan:
    """The changes an uninstall makes (see the module doc)."""
    manifest = _load_manifest()
    changes: list[FileChange] = []
    notes: list[str] = []
    path = hooks_path(harness, scope, home, project)
    current = _read(path)
    restored = _restore_original(path, current, manifest.get(str(path)))
    if restored is not None:
        changes.append(restored)
    elif current is not None:
        text = _settings_text(path, current)
        doc = load_json(text, str(path))
        if remove_hooks(doc, str(path)):
            changes.append(FileChange(path, current, dump_json(doc, text).encode()))
            notes.append(f"{path}: edited since ctxkeep's install; only its hooks are removed")
    flag = flag_path(harness, home)
    if flag is not None:
        flag_now = _read(flag)
        restored_flag = _restore_original(flag, flag_now, manifest.get(str(flag)))
        if restored_flag is not None:
            changes.append(restored_flag)
        elif str(flag) in manifest:
            notes.append(f"{flag}: edited since ctxkeep's install; [features] hooks left as is")
    if not changes:
        notes.append(f"ctxkeep's hooks are not installed for {harness} ({scope})")
    return Plan(harness, scope, "uninstall", tuple(changes), tuple(notes))


@dataclass(frozen=True, slots=True)
class StatusRow:
    """What is installed for one harness and scope."""

    harness: str
    scope: str
    path: str
    installed: dict[str, list[str]] = field(default_factory=dict)
    problem: str | None = None
    flag: str | None = None
    version: str | None = None
    version_source: str = ""
    compact: str = ""


def _flag_state(path: Path) -> str:
    data = _read(path)
    if data is None:
        return f"{path} missing: hooks are off until [features] hooks = true"
    hooks, legacy = hooks_flag(_settings_text(path, data), str(path))
    if hooks:
        return f"{path}: [features] hooks = true"
    if legacy:
        return f"{path}: [features] codex_hooks = true (the former name; newer Codex: hooks)"
    return f"{path}: [features] hooks is not true: hooks are off"


def status(home: Path, project: Path) -> list[StatusRow]:
    """Where ctxkeep's hooks are installed, and whether each harness fires the restore."""
    rows: list[StatusRow] = []
    for harness in HARNESSES:
        found = find_version(harness, home)
        support = compact_support(harness, found.version)
        flag = flag_path(harness, home)
        for scope in SCOPES:
            path = hooks_path(harness, scope, home, project)
            installed: dict[str, list[str]] = {}
            problem = flag_state = None
            try:
                data = _read(path)
                if data is not None:
                    installed = ours_installed(load_json(_settings_text(path, data), str(path)))
                flag_state = None if flag is None else _flag_state(flag)
            except SettingsError as exc:
                problem = str(exc)
            rows.append(
                StatusRow(
                    harness=harness,
                    scope=scope,
                    path=str(path),
                    installed=installed,
                    problem=problem,
                    flag=flag_state,
                    version=found.version,
                    version_source=found.source,
                    compact=support,
                )
            )
    return rows
