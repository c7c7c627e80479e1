"""Entry point: the top-level typer app and the error handling shared by all commands."""

from __future__ import annotations

import sys

import typer
from typer.exceptions import TyperException

from .._build import StaleBuild, check_built
from ..errors import InputError, OutputError

#: the top-level commands (name -> the module of ``cli`` that defines the function of that
#: name) and the sub-command groups (name -> the module whose ``app`` they are), in the order
#: of ``--help``
COMMANDS: dict[str, str] = {
    "simulate": "core", "schedulers": "core", "validate": "validate", "demo": "core",
    "data": "data", "generate": "coloc", "report": "coloc", "compare": "compare", "gui": "gui",
}  # fmt: skip
GROUPS: dict[str, str] = {
    "insitu": "insitu", "workflows": "workflows", "coupled": "coupled", "study": "study",
    "elise": "elise",
}  # fmt: skip


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"coschedlab {version('coschedlab')}")
        raise typer.Exit(0)


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="print the version and exit"
    ),
) -> None:
    """Design, simulate and plan co-scheduling on HPC systems."""


def build_app(command: str | None = None) -> typer.Typer:
    """The typer app with every command, or with ``command`` alone (what one invocation
    needs: the other commands' modules, and what they import, are not loaded)."""
    from importlib import import_module

    from .plainparams import install

    install()  # plain option values without pydantic
    the_app = typer.Typer(
        name="coschedlab",
        help="Design, simulate and plan co-scheduling on HPC systems.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode="markdown",
    )
    the_app.callback()(_root)
    for name, module in COMMANDS.items():
        if command in (None, name):
            the_app.command()(getattr(import_module(f".{module}", __package__), name))
    groups = {}
    for name, module in GROUPS.items():
        if command in (None, name):
            groups[name] = import_module(f".{module}", __package__).app
            the_app.add_typer(groups[name], name=name)
    if command not in COMMANDS:  # the registered capabilities' sweep commands
        from .sweeps import add_sweep_commands

        add_sweep_commands(the_app, groups, only=command)
    return the_app


def __getattr__(name: str) -> typer.Typer:
    """``app``: the whole app, made on first use (PEP 562)."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    app = globals()["app"] = build_app()
    return app


def _app_for(argv: list[str]) -> typer.Typer:
    """The app one command line needs: its command alone when it names one, else the whole
    app (``--help``, ``--version``, a mistyped command)."""
    if "app" in globals():  # made already (and perhaps extended): use it
        return globals()["app"]
    first = argv[0] if argv else None
    return build_app(first if first in COMMANDS or first in GROUPS else None)


def main() -> None:
    """Run the CLI; user errors print one line and exit with code 2. Started by the
    dashboard (:data:`~coschedlab.sweeps.PARENT` set), it ends with the dashboard."""
    import os

    from ..sweeps import PARENT

    if os.environ.get(PARENT):
        from ..sweeps.pool import watch_parent

        watch_parent()
    try:
        check_built()
        code = _app_for(sys.argv[1:])(standalone_mode=False, prog_name="coschedlab")
    except InputError as exc:
        _fail(f"error: {exc}", 2, exc)
    except OutputError as exc:  # the machine failed (full disk): exit 1
        _fail(f"error: {exc}", 1, exc)
    except OSError as exc:
        from ..outputs import os_error

        err = os_error(exc)
        _fail(f"error: {err}", 1 if isinstance(err, OutputError) else 2, exc)
    except KeyboardInterrupt:
        _fail(INTERRUPTED, 130, None)
    except StaleBuild as exc:  # a compiled module older than its source
        _fail(f"error: {exc}", 1, exc)
    except ImportError as exc:
        unbuilt = _unbuilt(exc)
        if unbuilt is None:
            raise
        _fail(
            f"error: the compiled core is not built ({unbuilt} is missing or does not load: "
            f"{exc}); run scripts/setup.sh (or make run) to build it",
            1,
            exc,
        )
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(1)
    except TyperException as exc:  # usage errors: bad option, missing argument
        show = getattr(exc, "show", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and show is not None:
            show()  # a command given nothing prints its help
        else:  # one line, as every other error: what, and where to read more
            ctx = getattr(exc, "ctx", None)
            path = getattr(ctx, "command_path", None)
            hint = f" (see {path} --help)" if path else ""
            message = " ".join(exc.format_message().split())
            print(f"error: {message}{hint}", file=sys.stderr)
        sys.exit(exc.exit_code if exc.exit_code else 2)
    except Exception as exc:  # a bug: one line, the traceback on request
        where = _where(exc)
        _fail(
            f"internal error: {type(exc).__name__}: {exc} ({where}); please report it "
            "(COSCHEDLAB_TRACEBACK=1 shows the traceback)",
            3,
            exc,
        )
    if code == 130:  # Ctrl-C: typer turns it into a return code, without a word
        _fail(INTERRUPTED, 130, None)
    sys.exit(code if isinstance(code, int) else 0)


INTERRUPTED = (
    "interrupted; no partial result was written (earlier results are intact; sweeps resume)"
)


def _unbuilt(exc: ImportError) -> str | None:
    """The compiled module (one of coschedlab's ``.pyx``) that ``exc`` failed to import, or
    None when the import error is about something else."""
    from pathlib import Path

    name = exc.name or ""
    if not name.startswith("coschedlab."):
        return None
    root = Path(__file__).resolve().parent.parent
    source = root.joinpath(*name.split(".")[1:]).with_suffix(".pyx")
    return name if source.is_file() else None


def _where(exc: BaseException) -> str:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"


def _fail(message: str, code: int, exc: BaseException | None) -> None:
    """Print one line (and the traceback when COSCHEDLAB_TRACEBACK is set), exit ``code``."""
    import os

    if exc is not None and os.environ.get("COSCHEDLAB_TRACEBACK"):
        import traceback

        traceback.print_exception(exc)
    from ..bundled import in_words

    print(in_words(message), file=sys.stderr)  # bundled files named coschedlab:NAME
    sys.exit(code)
