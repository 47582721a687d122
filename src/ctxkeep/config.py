"""Audit settings from ``[tool.ctxkeep]`` in a pyproject.toml or from a ctxkeep.toml.

The file is found from a folder (the cwd) upward: in each folder a ``ctxkeep.toml``
(settings at its top level) wins over a ``pyproject.toml``; a pyproject.toml without a
``[tool.ctxkeep]`` table is passed over. Command-line options override the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxkeep.base.findings import Severity

__all__ = ["AuditConfig", "ConfigError", "find_config", "load_config"]

_KEYS = ("select", "ignore", "fail-on")


class ConfigError(ValueError):
    """A settings file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """Which rules run and which level fails; ``source`` is the file they came from."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: Severity | None = None
    source: Path | None = None


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: must be a list of rule ids or names")
    return tuple(value)


def _parse(table: Mapping[str, Any], path: Path, prefix: str) -> AuditConfig:
    for key in table:
        if key not in _KEYS:
            raise ConfigError(f"{path}: unknown key {prefix}{key} (known: {', '.join(_KEYS)})")
    fail_on = table.get("fail-on")
    if fail_on is not None and fail_on not in {s.value for s in Severity}:
        raise ConfigError(f"{path}: {prefix}fail-on must be one of error, warn, info")
    return AuditConfig(
        select=_names(table.get("select", []), f"{path}: {prefix}select"),
        ignore=_names(table.get("ignore", []), f"{path}: {prefix}ignore"),
        fail_on=Severity(fail_on) if fail_on is not None else None,
        source=path,
    )


def _read(path: Path) -> dict[str, Any]:
    import tomllib  # here: a folder with no settings file does not pay for the parser

    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def load_config(path: Path) -> AuditConfig | None:
    """The settings in one file, or None for a pyproject.toml without ``[tool.ctxkeep]``."""
    data = _read(path)
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("ctxkeep") if isinstance(tool, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.ctxkeep] must be a table")
        return _parse(table, path, "tool.ctxkeep.")
    return _parse(data, path, "")


def find_config(start: Path) -> AuditConfig:
    """The settings that apply in folder ``start``: the nearest file upward, else defaults."""
    folder = start.resolve()
    for candidate in (folder, *folder.parents):
        for name in ("ctxkeep.toml", "pyproject.toml"):
            path = candidate / name
            if path.is_file():
                found = load_config(path)
                if found is not None:
                    return found
    return AuditConfig()
