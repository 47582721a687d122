"""``ctxkeep hook install / uninstall`` on temporary homes with settings already there."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hooks.harness import Home, make_home, run_ctxkeep

CLAUDE_SETTINGS = """{
    "permissions": {
        "allow": ["Bash(pytest:*)"]
    },
    "hooks": {
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [{"type": "command", "command": "cat .claude/session-context.md"}]
            }
        ],
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [{"type": "command", "command": "ruff check --fix"}]
            }
        ]
    },
    "model": "opus"
}
"""

CODEX_HOOKS = """{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send done"}]}
    ]
  }
}
"""

CODEX_CONFIG = """# my Codex settings
model = "gpt-5-codex"   # the default model
approval_policy = "on-request"

[features]
# experimental things I use
web_search_request = true

[mcp_servers.docs]
command = "docs-mcp"   # keep this comment
"""


def _claude(home: Home) -> Path:
    path = home.root / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _backups(home: Home) -> list[Path]:
    folder = home.ctxkeep / "hook-backups"
    return sorted(folder.iterdir()) if folder.exists() else []


def _our_commands(doc: dict[str, object]) -> list[str]:
    hooks = doc["hooks"]
    assert isinstance(hooks, dict)
    return [
        h["command"]
        for groups in hooks.values()
        for g in groups
        for h in g["hooks"]
        if "ctxkeep" in h["command"]
    ]


def test_claude_code_install_merges_keeps_others_and_uninstall_restores_bytes(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path)
    settings = _claude(home)
    settings.write_text(CLAUDE_SETTINGS)
    done = run_ctxkeep(home, "hook", "install", "--harness", "claude-code")
    assert done.returncode == 0, done.stderr
    doc = json.loads(settings.read_text())
    assert doc["permissions"] == {"allow": ["Bash(pytest:*)"]}
    assert doc["model"] == "opus"
    session_start = doc["hooks"]["SessionStart"]
    assert session_start[0]["matcher"] == "startup"  # the user's own hook, first, untouched
    assert session_start[1]["matcher"] == "compact"
    assert session_start[1]["hooks"][0]["command"].endswith(" hook session-start")
    assert doc["hooks"]["PostToolUse"] == json.loads(CLAUDE_SETTINGS)["hooks"]["PostToolUse"]
    assert "matcher" not in doc["hooks"]["PreCompact"][0]
    assert settings.read_text().startswith('{\n    "permissions"')  # its 4-space indent kept
    [backup] = _backups(home)
    assert backup.read_text() == CLAUDE_SETTINGS
    assert f"backup: {backup}" in done.stdout

    installed = settings.read_bytes()
    again = run_ctxkeep(home, "hook", "install", "--harness", "claude-code")
    assert again.returncode == 0
    assert "already there" in again.stdout
    assert settings.read_bytes() == installed
    assert len(_backups(home)) == 1

    gone = run_ctxkeep(home, "hook", "uninstall", "--harness", "claude-code")
    assert gone.returncode == 0, gone.stderr
    assert settings.read_text() == CLAUDE_SETTINGS


def test_claude_code_dry_run_prints_a_diff_and_writes_nothing(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    settings = _claude(home)
    settings.write_text(CLAUDE_SETTINGS)
    done = run_ctxkeep(home, "hook", "install", "--harness", "claude-code", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f"--- {settings}\n+++ {settings}\n" in done.stdout
    assert any(
        line.startswith("+") and "hook session-start" in line for line in done.stdout.splitlines()
    )
    assert "(dry run: nothing written)" in done.stdout
    assert settings.read_text() == CLAUDE_SETTINGS
    assert not home.ctxkeep.exists()


@pytest.mark.parametrize(
    "broken",
    [
        '{\n  // my comment\n  "model": "opus"\n}\n',
        '{"hooks": {"SessionStart": [}\n',
        '{"model": "opus",}',
    ],
    ids=["comment", "truncated", "trailing-comma"],
)
def test_claude_code_refuses_a_file_it_cannot_parse(tmp_path: Path, broken: str) -> None:
    home = make_home(tmp_path)
    settings = _claude(home)
    settings.write_text(broken)
    for action in ("install", "uninstall"):
        done = run_ctxkeep(home, "hook", action, "--harness", "claude-code")
        assert done.returncode == 2
        assert re.search(rf"error: {re.escape(str(settings))}:\d+:\d+: not valid JSON", done.stderr)
        assert "nothing was changed" in done.stderr
        assert settings.read_text() == broken
    assert _backups(home) == []


def test_claude_code_refuses_hooks_of_the_wrong_shape(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    settings = _claude(home)
    settings.write_text('{"hooks": {"SessionStart": {"matcher": "x"}}}')
    done = run_ctxkeep(home, "hook", "install", "--harness", "claude-code")
    assert done.returncode == 2
    assert "'hooks.SessionStart' is not a list" in done.stderr


def test_claude_code_created_file_is_removed_by_uninstall(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    settings = home.root / ".claude" / "settings.json"
    assert run_ctxkeep(home, "hook", "install", "--harness", "claude-code").returncode == 0
    assert len(_our_commands(json.loads(settings.read_text()))) == 2
    assert _backups(home) == []  # nothing existed to back up
    assert run_ctxkeep(home, "hook", "uninstall", "--harness", "claude-code").returncode == 0
    assert not settings.exists()


def test_claude_code_project_scope_leaves_the_user_settings_alone(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    user = _claude(home)
    user.write_text(CLAUDE_SETTINGS)
    done = run_ctxkeep(home, "hook", "install", "--harness", "claude-code", "--scope", "project")
    assert done.returncode == 0, done.stderr
    project = home.project / ".claude" / "settings.json"
    assert len(_our_commands(json.loads(project.read_text()))) == 2
    assert user.read_text() == CLAUDE_SETTINGS


def test_uninstall_after_the_user_edited_removes_only_ctxkeeps_hooks(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    settings = _claude(home)
    settings.write_text(CLAUDE_SETTINGS)
    assert run_ctxkeep(home, "hook", "install", "--harness", "claude-code").returncode == 0
    doc = json.loads(settings.read_text())
    doc["theme"] = "dark"  # the user's own change after the install
    settings.write_text(json.dumps(doc, indent=4) + "\n")
    done = run_ctxkeep(home, "hook", "uninstall", "--harness", "claude-code")
    assert done.returncode == 0, done.stderr
    assert "only its hooks are removed" in done.stdout
    after = json.loads(settings.read_text())
    assert after == {**json.loads(CLAUDE_SETTINGS), "theme": "dark"}


def test_claude_config_dir_is_honoured(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    config = tmp_path / "claude-config"
    done = run_ctxkeep_env(home, {"CLAUDE_CONFIG_DIR": str(config)}, "install")
    assert done.returncode == 0, done.stderr
    assert (config / "settings.json").exists()
    assert not (home.root / ".claude").exists()


def run_ctxkeep_env(
    home: Home, extra: dict[str, str], action: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxkeep", "hook", action, "--harness", "claude-code"],
        capture_output=True,
        text=True,
        env=home.env(**extra),
        cwd=home.project,
        timeout=300,
        check=False,
    )


def _codex(home: Home, hooks: str | None, config: str | None) -> tuple[Path, Path]:
    folder = home.root / ".codex"
    folder.mkdir(parents=True, exist_ok=True)
    hooks_path, config_path = folder / "hooks.json", folder / "config.toml"
    if hooks is not None:
        hooks_path.write_text(hooks)
    if config is not None:
        config_path.write_text(config)
    return hooks_path, config_path


def test_codex_install_adds_one_line_to_config_and_uninstall_restores_both(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path)
    hooks, config = _codex(home, CODEX_HOOKS, CODEX_CONFIG)
    done = run_ctxkeep(home, "hook", "install", "--harness", "codex")
    assert done.returncode == 0, done.stderr
    old, new = CODEX_CONFIG.splitlines(), config.read_text().splitlines()
    assert new == [*old[:4], "[features]", "hooks = true", *old[5:]]  # comments all kept
    doc = json.loads(hooks.read_text())
    assert doc["hooks"]["Stop"] == json.loads(CODEX_HOOKS)["hooks"]["Stop"]
    assert len(_our_commands(doc)) == 2
    assert len(_backups(home)) == 2

    config_after, hooks_after = config.read_bytes(), hooks.read_bytes()
    again = run_ctxkeep(home, "hook", "install", "--harness", "codex")
    assert again.returncode == 0
    assert (config.read_bytes(), hooks.read_bytes()) == (config_after, hooks_after)

    gone = run_ctxkeep(home, "hook", "uninstall", "--harness", "codex")
    assert gone.returncode == 0, gone.stderr
    assert hooks.read_text() == CODEX_HOOKS
    assert config.read_text() == CODEX_CONFIG


def test_codex_dry_run_shows_the_config_line(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    hooks, config = _codex(home, None, CODEX_CONFIG)
    done = run_ctxkeep(home, "hook", "install", "--harness", "codex", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "+hooks = true\n" in done.stdout
    assert f"--- /dev/null\n+++ {hooks}\n" in done.stdout
    assert not hooks.exists()
    assert config.read_text() == CODEX_CONFIG


def test_codex_turns_a_false_flag_true_keeping_its_comment(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    _, config = _codex(home, None, "[features]\nhooks = false  # off for now\n")
    assert run_ctxkeep(home, "hook", "install", "--harness", "codex").returncode == 0
    assert config.read_text() == "[features]\nhooks = true  # off for now\n"


def test_codex_with_no_files_creates_both_and_uninstall_removes_both(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    hooks, config = home.root / ".codex" / "hooks.json", home.root / ".codex" / "config.toml"
    assert run_ctxkeep(home, "hook", "install", "--harness", "codex").returncode == 0
    assert config.read_text() == "[features]\nhooks = true\n"
    assert hooks.exists()
    assert run_ctxkeep(home, "hook", "uninstall", "--harness", "codex").returncode == 0
    assert not hooks.exists()
    assert not config.exists()


@pytest.mark.parametrize(
    ("config_text", "message"),
    [
        ('model = "gpt-5\n', "not valid TOML"),
        ("features = { web_search_request = true }\n", "inline table or dotted keys"),
        ("features.web_search_request = true\n", "inline table or dotted keys"),
    ],
    ids=["invalid", "inline-table", "dotted-keys"],
)
def test_codex_refuses_a_config_it_will_not_edit_and_changes_nothing(
    tmp_path: Path, config_text: str, message: str
) -> None:
    home = make_home(tmp_path)
    hooks, config = _codex(home, CODEX_HOOKS, config_text)
    done = run_ctxkeep(home, "hook", "install", "--harness", "codex")
    assert done.returncode == 2
    assert message in done.stderr
    assert config.read_text() == config_text
    assert hooks.read_text() == CODEX_HOOKS  # the plan failed before anything was written


def test_codex_refuses_invalid_hooks_json(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    hooks, config = _codex(home, '{"hooks": {', CODEX_CONFIG)
    done = run_ctxkeep(home, "hook", "install", "--harness", "codex")
    assert done.returncode == 2
    assert f"{hooks}:1:" in done.stderr
    assert config.read_text() == CODEX_CONFIG
