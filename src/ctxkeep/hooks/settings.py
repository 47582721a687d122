"""Editing the harnesses' settings files: the ``hooks`` object (JSON) and Codex's flag (TOML).

Pure text in, text out, so every edit is checked before anything is written. A file that
does not parse is refused with its line and column, never rewritten. The JSON edit merges
ctxkeep's two hooks into whatever ``hooks`` holds and keeps every other hook and setting;
the TOML edit sets ``[features] hooks = true`` by inserting or changing one line, leaving
every other byte (comments included) as it was, and is verified by parsing the result.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from ctxkeep.log.ledger import is_ctxkeep_command

__all__ = [
    "HOOKS",
    "HookSpec",
    "SettingsError",
    "add_hooks",
    "dump_json",
    "enable_hooks_flag",
    "hooks_flag",
    "is_ctxkeep_hook",
    "load_json",
    "ours_installed",
    "remove_hooks",
]


class SettingsError(ValueError):
    """A settings file ctxkeep will not edit (it does not parse, or has an odd shape)."""


@dataclass(frozen=True, slots=True)
class HookSpec:
    """One hook ctxkeep installs: the harness event, its matcher and the subcommand."""

    event: str
    matcher: str | None
    subcommand: str
    timeout: int


HOOKS = (
    HookSpec("SessionStart", "compact", "session-start", 30),
    HookSpec("PreCompact", None, "pre-compact", 30),
)


def is_ctxkeep_hook(hook: Any) -> bool:
    """A hook entry (``{"type": "command", "command": ...}``) that runs ``ctxkeep hook``."""
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and is_ctxkeep_command(hook["command"])
    )


def load_json(text: str, where: str) -> dict[str, Any]:
    """A settings document; empty text is an empty one. Raises :class:`SettingsError`."""
    if not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{where}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); nothing was "
            "changed. Fix the file, or add the hook by hand (docs/hooks.md)."
        ) from None
    if not isinstance(doc, dict):
        raise SettingsError(f"{where}: the settings are not a JSON object; nothing was changed")
    return doc


def _indent_of(text: str) -> int | str:
    """The indentation the file already uses (2 spaces for a new one)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return lead if "\t" in lead else len(lead)
    return 2


def dump_json(doc: dict[str, Any], original: str) -> str:
    """``doc`` as JSON in the original file's indentation, ending in a newline."""
    return json.dumps(doc, indent=_indent_of(original), ensure_ascii=False) + "\n"


def _event_groups(doc: dict[str, Any], event: str, where: str, *, create: bool) -> list[Any]:
    hooks = doc.get("hooks")
    if hooks is None and create:
        hooks = doc["hooks"] = {}
    if hooks is None:
        return []
    if not isinstance(hooks, dict):
        raise SettingsError(f"{where}: 'hooks' is not an object; nothing was changed")
    groups = hooks.get(event)
    if groups is None and create:
        groups = hooks[event] = []
    if groups is None:
        return []
    if not isinstance(groups, list):
        raise SettingsError(f"{where}: 'hooks.{event}' is not a list; nothing was changed")
    return groups


def _group_hooks(group: Any) -> list[Any]:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return hooks if isinstance(hooks, list) else []


def ours_installed(doc: dict[str, Any], where: str = "settings") -> dict[str, list[str]]:
    """For each event, the commands of ctxkeep's hooks found under it."""
    found: dict[str, list[str]] = {}
    for spec in HOOKS:
        for group in _event_groups(doc, spec.event, where, create=False):
            for hook in _group_hooks(group):
                if is_ctxkeep_hook(hook):
                    found.setdefault(spec.event, []).append(hook["command"])
    return found


def add_hooks(doc: dict[str, Any], command: str, where: str) -> bool:
    """Add ctxkeep's hooks to ``doc`` (in place) where absent; True when it changed."""
    changed = False
    for spec in HOOKS:
        groups = _event_groups(doc, spec.event, where, create=True)
        if any(is_ctxkeep_hook(h) for g in groups for h in _group_hooks(g)):
            continue
        entry: dict[str, Any] = {} if spec.matcher is None else {"matcher": spec.matcher}
        run = {"type": "command", "command": f"{command} hook {spec.subcommand}"}
        entry["hooks"] = [{**run, "timeout": spec.timeout}]
        groups.append(entry)
        changed = True
    return changed


def remove_hooks(doc: dict[str, Any], where: str) -> bool:
    """Remove ctxkeep's hooks from ``doc`` (in place); True when it changed.

    A matcher group, an event list or the ``hooks`` object left empty by the removal is
    removed too; one that was empty before is left alone.
    """
    changed = False
    hooks = doc.get("hooks")
    for spec in HOOKS:
        groups = _event_groups(doc, spec.event, where, create=False)
        kept_groups = []
        for group in groups:
            inner = _group_hooks(group)
            kept = [h for h in inner if not is_ctxkeep_hook(h)]
            if len(kept) == len(inner):
                kept_groups.append(group)
                continue
            changed = True
            if kept:
                group["hooks"] = kept
                kept_groups.append(group)
        if len(kept_groups) != len(groups) and isinstance(hooks, dict):
            if kept_groups:
                hooks[spec.event] = kept_groups
            else:
                del hooks[spec.event]
    if changed and hooks == {}:
        del doc["hooks"]
    return changed


_FEATURES_HEADER = re.compile(r"^[ \t]*\[[ \t]*features[ \t]*\][ \t]*(?:#.*)?$")
_TABLE_HEADER = re.compile(r"^[ \t]*\[")
_HOOKS_KEY = re.compile(
    r"^(?P<lead>[ \t]*hooks[ \t]*=[ \t]*)(?P<value>[^#\r\n]*?)(?P<rest>[ \t]*(?:#.*)?)$"
)


def _parse_toml(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(
            f"{where}: not valid TOML ({exc}); nothing was changed. Fix the file, or set "
            "[features] hooks = true by hand (docs/hooks.md)."
        ) from None


def hooks_flag(text: str, where: str = "config.toml") -> tuple[bool | None, bool | None]:
    """``[features] hooks`` and the former ``codex_hooks``: each True/False, or None if unset."""
    features = _parse_toml(text, where).get("features")
    if not isinstance(features, dict):
        return None, None
    hooks, legacy = features.get("hooks"), features.get("codex_hooks")
    return (
        hooks if isinstance(hooks, bool) else None,
        legacy if isinstance(legacy, bool) else None,
    )


def _set_flag_lines(lines: list[str], has_key: bool) -> list[str] | None:
    """``lines`` with ``hooks = true`` in the ``[features]`` table, or None if not found."""
    for i, line in enumerate(lines):
        if not _FEATURES_HEADER.match(line.rstrip("\r\n")):
            continue
        if not has_key:
            newline = "\r\n" if line.endswith("\r\n") else "\n"
            head = line if line.endswith("\n") else line + newline
            return [*lines[:i], head, f"hooks = true{newline}", *lines[i + 1 :]]
        for j in range(i + 1, len(lines)):
            body = lines[j].rstrip("\r\n")
            if _TABLE_HEADER.match(body):
                return None
            match = _HOOKS_KEY.match(body)
            if match:
                ending = lines[j][len(body) :]
                new = f"{match['lead']}true{match['rest']}{ending}"
                return [*lines[:j], new, *lines[j + 1 :]]
        return None
    return None


def enable_hooks_flag(text: str, where: str = "config.toml") -> str:
    """``text`` with ``[features] hooks = true``, every other byte unchanged.

    Raises :class:`SettingsError` when the file does not parse, or when ``features`` is
    written in a form this edit does not touch (an inline table, dotted keys): the user
    is told to set it by hand rather than have the file rewritten.
    """
    data = _parse_toml(text, where)
    features = data.get("features", {})
    if not isinstance(features, dict):
        raise SettingsError(f"{where}: 'features' is not a table; nothing was changed")
    if features.get("hooks") is True:
        return text
    new_lines = _set_flag_lines(text.splitlines(keepends=True), "hooks" in features)
    if new_lines is not None:
        new = "".join(new_lines)
    elif "hooks" in features:
        new = ""  # set, but not on a line of [features] this edit can change
    else:
        sep = "" if not text else "\n" if text.endswith("\n") else "\n\n"
        new = f"{text}{sep}[features]\nhooks = true\n"
    try:
        result = tomllib.loads(new) if new else None
    except tomllib.TOMLDecodeError:
        result = None
    if result != {**data, "features": {**features, "hooks": True}}:
        raise SettingsError(
            f"{where}: [features] is written in a form ctxkeep does not edit (an inline table "
            "or dotted keys); nothing was changed. Set hooks = true under [features] by hand."
        )
    return new
