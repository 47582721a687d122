"""Every command is documented: in the README and with a --help that explains it."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from ctxkeep.cli.main import cli

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _commands() -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None, name
        assert command.name == name, f"{name} is registered as {command.name}"
        out.append((name, command))
        if isinstance(command, click.Group):
            out.extend((f"{name} {sub}", c) for sub, c in sorted(command.commands.items()))
    return out


@pytest.mark.parametrize(("name", "command"), _commands())
def test_command_is_in_the_readme_and_explains_itself(name: str, command: click.Command) -> None:
    assert f"`{name.split(maxsplit=1)[0]}`" in README or f"ctxkeep {name}" in README, name
    assert command.help is not None
    assert len(command.help.split()) >= 8, f"{name}: --help says too little"
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert param.help, f"{name} {param.opts[0]}: option without help"
