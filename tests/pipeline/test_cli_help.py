"""``gdan … --help`` reads as prose at any terminal width: a command's description is reflowed
to the terminal, not cut where its docstring wraps in the source."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gdan import app


def commands() -> list[tuple[list[str], Any]]:
    """Every command of ``gdan`` with the arguments that reach it (``rules readings`` …); typer's
    command objects (a group has ``commands``)."""
    found: list[tuple[list[str], Any]] = []

    def walk(path: list[str], command: Any) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk([*path, name], sub)
        else:
            found.append((path, command))

    walk([], typer.main.get_command(app))
    return found


COMMANDS = commands()


def words(text: str) -> str:
    """Text as the help shows it: markdown code marks dropped, whitespace collapsed."""
    return " ".join(text.replace("`", "").split())


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_help_paragraphs_are_reflowed(path: list[str], command: Any) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "1000"}, terminal_width=1000)
    assert result.exit_code == 0, result.output
    shown = [words(line) for line in result.output.splitlines()]
    for paragraph in inspect.cleandoc(command.help or "").split("\n\n"):
        assert words(paragraph) in shown, f"{' '.join(path)}: paragraph split:\n{result.output}"
