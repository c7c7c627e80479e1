"""Options every command shares are declared once (cli/options.py) and read the same everywhere."""

from __future__ import annotations

import typer
import typer.main

from coschedlab.cli import options
from coschedlab.cli.main import build_app


def _commands(group: object, path: tuple[str, ...] = ()):
    """Every leaf command of the click tree under ``group``, with its words."""
    subs = getattr(group, "commands", None)
    if subs is None:
        yield path, group
        return
    for name, sub in subs.items():
        yield from _commands(sub, (*path, name))


def _shared_help(annotation: object) -> str:
    """The help of the typer option an ``options.*Opt`` annotation declares."""
    return next(m for m in annotation.__metadata__ if isinstance(m, typer.models.OptionInfo)).help


def test_every_json_and_force_option_is_the_shared_declaration():
    shared = {"--json": _shared_help(options.JsonOpt), "--force": _shared_help(options.ForceOpt)}
    seen = dict.fromkeys(shared, 0)
    own = []
    for words, command in _commands(typer.main.get_command(build_app())):
        for param in command.params:
            flag = param.opts[0]  # an alias (study reproduce's --fresh, also --force) is not it
            if flag in shared:
                seen[flag] += 1
                if param.help != shared[flag]:
                    own.append(f"{' '.join(words)} {flag}: {param.help!r}")
    assert not own, "declared by hand instead of cli/options.py: " + "; ".join(own)
    assert seen["--json"] >= 3 and seen["--force"] >= 6, seen  # the walk found the commands
