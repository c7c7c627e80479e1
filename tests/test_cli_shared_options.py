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


#: commands whose options are generated from the library function they are passed to
#: (options.passes): (words, "module:function", the parameters given as options)
PASSED = [
    (("simulate",), "coschedlab.cli.batch:run_simulate",
     ["nodes", "cores_per_node", "sockets", "pool", "heatmap", "compact_times",
      "kill_at_walltime", "dependencies", "strict", "out", "pass_timeout", "validate",
      "swf_integers"]),
    (("workflows", "generate"), "coschedlab.workflows.workload:generate",
     ["share", "period", "seed", "warmup", "window", "pressure", "target_wait", "scale_jobs"]),
    (("insitu", "generate"), "coschedlab.insitu.spec:generate_ensemble",
     ["simulations", "data", "nodes", "steps", "seed", "network"]),
    (("insitu", "simulate"), "coschedlab.insitu.simulate:simulate", ["network", "engine", "io"]),
    (("coupled", "simulate"), "coschedlab.coupled.setup:run_coupled",
     ["mate_attempt", "baseline"]),
]  # fmt: skip


def test_passed_options_have_their_functions_defaults_flags_and_help():
    """Each generated option: the flag of its parameter's name, the function's default (and
    none: required), help; a flag on by default can be turned off (--no-NAME)."""
    import inspect
    from importlib import import_module

    tree = typer.main.get_command(build_app())
    for words, where, names in PASSED:
        command = tree
        for word in words:
            command = command.commands[word]
        module, _, name = where.partition(":")
        defaults = inspect.signature(getattr(import_module(module), name)).parameters
        params = {p.name: p for p in command.params}
        for n in names:
            p, want = params[n], defaults[n].default
            flag = "--" + n.replace("_", "-")
            assert p.opts == [flag] and p.help, (words, n, p.opts)
            if want is inspect.Parameter.empty:
                assert p.required, (words, n)
            else:
                assert p.default == want and type(p.default) is type(want), (words, n, p.default)
            if want is True:
                assert p.secondary_opts == [f"--no-{flag[2:]}"], (words, n)
