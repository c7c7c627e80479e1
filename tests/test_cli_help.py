"""Every command's ``--help`` at 80 columns reads as a command-line user expects
(:mod:`coschedlab.cli.helpstyle`): a flag shows no value type, a repeated option the type
of one value, types in lower case, arguments in capitals in the usage line."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from coschedlab.cli.main import build_app


def _commands() -> list[list[str]]:
    """The words of every command (groups' subcommands included)."""
    root = typer.main.get_command(build_app())
    found = []

    def walk(cmd: typer.core.TyperCommand, words: list[str]) -> None:
        if hasattr(cmd, "commands"):  # a group (typer's own click)
            for name, sub in cmd.commands.items():
                walk(sub, [*words, name])
        else:
            found.append(words)

    walk(root, [])
    return found


COMMANDS = _commands()


def test_every_command_is_looked_at():
    assert len(COMMANDS) >= 25
    assert ["simulate"] in COMMANDS and ["study", "run"] in COMMANDS


@pytest.mark.parametrize("words", COMMANDS, ids=[" ".join(w) for w in COMMANDS])
def test_help_reads_as_a_user_expects(words, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("TERM", "dumb")
    result = CliRunner().invoke(build_app(), [*words, "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    text = result.output
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage  # (typer: {trace})
    assert re.search(r"<bool>|<list\[|<[A-Z]", text) is None, text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_a_flag_shows_no_type_and_an_argument_is_in_capitals(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = CliRunner().invoke(build_app(), ["simulate", "--help"], terminal_width=80).output
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "[OPTIONS] TRACE" in usage
    strict = next(line for line in text.splitlines() if "--strict" in line)
    assert "<" not in strict
    scheduler = next(line for line in text.splitlines() if "--scheduler" in line)
    assert "<str>" in scheduler
